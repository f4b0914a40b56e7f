"""Moodle's and CodeRunner's own fixture files import with the expected questions, answers,
fractions, tolerances and feedback; what the bank cannot hold is reported with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizbank.models import Course
from tests.quizbank.factories import make_course
from tests.quizbank.interchange.helpers import (
    THIRD_PARTY,
    import_file,
    notes_of,
    skipped_reasons,
    stored,
)

pytestmark = pytest.mark.django_db
MOODLE = THIRD_PARTY / "moodle_xml"


@pytest.fixture
def course() -> Course:
    return make_course(slug="target")


def test_multichoice_multiple_response_keeps_choices_feedback_and_partial_scoring(
    course: Course,
) -> None:
    report = import_file(
        course, "moodle", MOODLE / "moodle-qtype_multichoice/testquestion.moodle.xml"
    )
    question = stored(course)["multi-choice-001"]
    assert question["type"] == "multiple_choice"
    assert question["scoring"] == "partial"
    assert question["general_feedback"] == "Berlin, Paris and London"
    right = [choice["text"] for choice in question["choices"] if choice.get("correct")]
    assert [choice["text"] for choice in question["choices"]] == [
        "Tokyo",
        "Spain",
        "London",
        "Barcelona",
        "Paris",
    ]
    assert right == ["London", "Paris"]
    assert question["_topic"] == "default-for-c1"
    notes = notes_of(report, "multi-choice-001")
    assert any("2 hints not kept" in note for note in notes)
    assert any("penalty 0.333333" in note for note in notes)


def test_shortanswer_keeps_fractions_feedback_and_turns_the_wildcard_into_a_regex(
    course: Course,
) -> None:
    import_file(course, "moodle", MOODLE / "moodle-qtype_shortanswer/testquestion.moodle.xml")
    question = stored(course)["shortanswer-001"]
    assert question["type"] == "short_text"
    assert "case_sensitive" not in question  # usecase 0 is the bank's default
    assert question["answers"] == [
        {"text": "frog", "feedback": "Frog is a very good answer."},
        {"text": "toad", "fraction": 0.8, "feedback": "Toad is an OK good answer."},
        {"regex": ".*", "fraction": 0, "feedback": "That is a bad answer."},
    ]
    assert question["_topic"] == "test-questions"


def test_numerical_keeps_value_and_tolerance(course: Course) -> None:
    import_file(course, "moodle", MOODLE / "moodle-qtype_numerical/testquestion.moodle.xml")
    question = stored(course)["numerical-001"]
    assert question["type"] == "numeric"
    assert question["answers"] == [{"value": 6.25, "tolerance": 0.05}]
    assert question["general_feedback"] == "The average is 6.25"


def test_essay_becomes_a_written_viva_with_a_rubric_to_edit(course: Course) -> None:
    report = import_file(course, "moodle", MOODLE / "moodle-qtype_essay/testquestion.moodle.xml")
    question = stored(course)["essay-001"]
    assert question["type"] == "viva"
    assert question["mode"] == "written"
    assert question["prompt"] == "Write an essay with 500 words."
    assert [level["points"] for level in question["rubric"][0]["levels"]] == [0, 0.5, 1]
    assert any("rubric" in note for note in notes_of(report, "essay-001"))


def test_nested_categories_become_topics_and_tags(course: Course) -> None:
    path = MOODLE / "moodle-format_xml-fixtures/nested_categories_with_questions.xml"
    report = import_file(course, "moodle", path)
    questions = stored(course)
    assert len(report.questions) == 5
    assert {q["_topic"] for q in questions.values()} == {"iota"}
    assert questions["iota-question"].get("tags") is None
    assert questions["kappa-question"]["tags"] == ["kappa"]
    assert questions["iota-question"]["answer"] is True
    assert course.topics.get(slug="iota").description == "This is Iota category for test"


def test_coderunner_python3_function_becomes_a_code_question_and_the_rest_is_reported(
    course: Course,
) -> None:
    path = MOODLE / "moodle-qtype_coderunner/simpledemoquestions.xml"
    report = import_file(course, "moodle", path)
    question = stored(course)["python-function-sqr"]
    assert question["type"] == "code"
    assert question["entry_point"] == "sqr"
    assert [case["args"] for case in question["cases"]] == [[-3], [11], [-4], [0], [-100]]
    assert question["cases"][4]["hidden"] is True
    assert "return n * n" in question["files"]["reference.py"]
    assert "wrong_returns_none.py" in question["files"]
    reasons = list(skipped_reasons(report).values())
    assert len(report.questions) == 1
    assert len(reasons) == 14
    assert reasons.count("CodeRunner c_function questions: only python3 maps") == 2
    assert any("reads standard input" in reason for reason in reasons)
    assert any("customised CodeRunner template" in reason for reason in reasons)
    assert any("embedded files (q1.db)" in reason for reason in reasons)


def test_a_coderunner_prototype_is_refused_on_purpose(course: Course) -> None:
    path = MOODLE / "moodle-qtype_coderunner/prototype_c_via_python.xml"
    report = import_file(course, "moodle", path)
    assert report.questions == []
    assert list(skipped_reasons(report).values()) == [
        "a CodeRunner prototype (c_via_python), not a question"
    ]


def test_an_embedded_support_file_is_reported_with_the_question(course: Course) -> None:
    path = MOODLE / "moodle-qtype_coderunner/sqrexportwithsampleattachment.xml"
    report = import_file(course, "moodle", path)
    [(location, reason)] = skipped_reasons(report).items()
    assert "Python3 sqr function with an attachment" in location
    assert "(line 4)" in location
    assert "embedded files (sqrmodule.py)" in reason
    assert not course.questions.exists()


@pytest.mark.parametrize(
    ("find", "replace"),
    [
        ("<answer>def sqr(n):", "<answer>x = " + "-" * 100_000 + "1\ndef sqr(n):"),
        ("<text>print(sqr(-3))</text>", "<text>print(sqr(1" + "+1" * 100_000 + "))</text>"),
    ],
    ids=["answer", "test code"],
)
def test_python_nested_too_deeply_to_parse_skips_its_question_saying_so(
    course: Course, tmp_path: Path, find: str, replace: str
) -> None:
    source = (MOODLE / "moodle-qtype_coderunner/simpledemoquestions.xml").read_text()
    assert find in source
    path = tmp_path / "nested.xml"
    path.write_text(source.replace(find, replace, 1))
    report = import_file(course, "moodle", path)
    assert "python-function-sqr" not in stored(course)
    assert any("nested too deeply" in reason for reason in skipped_reasons(report).values())

"""GIFT files from Moodle and the GIFT grammar project import with the expected questions,
weights, ranges, tolerances and feedback; matching questions are reported."""

from __future__ import annotations

import pytest

from quizbank.models import Course
from quizbank.services.interchange import interchange_import
from tests.quizbank.factories import make_course
from tests.quizbank.interchange.helpers import THIRD_PARTY, import_file, skipped_reasons, stored

pytestmark = pytest.mark.django_db
GIFT = THIRD_PARTY / "gift"


@pytest.fixture
def course() -> Course:
    return make_course(slug="target")


def test_moodle_fixture_imports_every_form_and_reports_matching(course: Course) -> None:
    report = import_file(course, "gift", GIFT / "moodle-format_gift-fixtures/questions.gift.txt")
    questions = stored(course)
    assert skipped_reasons(report) == {
        "line 5": "matching questions have no counterpart in the bank"
    }
    assert questions["q8"]["type"] == "viva"
    assert questions["colours"]["type"] == "multiple_choice"
    assert [c.get("correct", False) for c in questions["colours"]["choices"]] == [
        True,
        False,
        True,
        False,
    ]
    assert questions["q2"]["choices"][1] == {"text": "red", "feedback": "wrong, it's yellow"}
    assert questions["q5"]["answers"] == [{"value": 3, "tolerance": 2}]
    assert questions["shortanswer"]["answers"][2] == {
        "regex": ".*",
        "fraction": 0,
        "feedback": "Completely wrong",
    }


def test_true_false_feedback_goes_to_the_answer_that_shows_it(course: Course) -> None:
    import_file(course, "gift", GIFT / "moodle-format_gift-fixtures/questions.gift.txt")
    question = stored(course)["q1"]
    assert question["answer"] is False
    # GIFT's first feedback is for a wrong answer (here: true), the second for a right one.
    assert question["true_feedback"] == "42 is the Ultimate Answer."
    assert question["false_feedback"] == "You gave the right answer."
    assert question["general_feedback"].startswith("This is, of course")


def test_category_switch_sets_the_topic_and_escapes_are_undone(course: Course) -> None:
    path = GIFT / "moodle-format_gift-fixtures/questions_in_category.gift.txt"
    import_file(course, "gift", path)
    questions = stored(course)
    assert {q["_topic"] for q in questions.values()} == {"default-for-new-features"}
    assert (
        'href="http://demo.moodle.net/file.php/5/media/bonjour.mp3"'
        in (questions["greeting"]["prompt"])
    )
    assert questions["moodle-acronym"]["answer"] is True


def test_numeric_forms_give_value_and_tolerance(course: Course) -> None:
    import_file(course, "gift", GIFT / "GIFT-grammar-PEG.js/numerical1.gift")
    answers = {slug: q["answers"] for slug, q in stored(course).items()}
    assert answers["what-is-the-value-of-pi-to-3-decimal-places"] == [
        {"value": 3.1415, "tolerance": 0.0005}
    ]
    assert answers["what-is-the-value-of-pi-to-3-decimal-places-2"] == [
        {"value": 3.1415, "tolerance": 0.0005}
    ]
    assert answers["pick-a-number-from-5-to-5"] == [{"value": 0, "tolerance": 5}]
    assert answers["when-was-ulysses-s-grant-born-2"] == [
        {"value": 1822},
        {"value": 1822, "tolerance": 2, "fraction": 0.5},
    ]
    grasp = answers["combien-de-principes-grasp-y-a-t-il"]
    assert [(a["value"], a.get("fraction", 1)) for a in grasp] == [(5, 0), (9, 1), (23, 0)]


def test_titles_weights_and_escaped_control_characters(course: Course) -> None:
    report = import_file(course, "gift", GIFT / "GIFT-grammar-PEG.js/options1.gift")
    questions = stored(course)
    assert report.skipped == []
    assert questions["kanji-origins"]["title"] == "Kanji Origins"
    assert questions["jesus-hometown-2"]["answers"][1] == {
        "text": "Nazereth",
        "fraction": 0.75,
        "feedback": "Right, but misspelled.",
    }
    controls = questions["gift-control-characters"]["choices"]
    assert [c["text"] for c in controls] == ["~", "=", "#", "{", "}", "\\"]
    assert controls[5]["correct"] is True
    notes = next(q.notes for q in report.questions if q.slug == "jesus-hometown")
    assert "choice 'Galilee' gave 50%; here it gives 0" in notes


def test_format_php_examples_import_and_matching_is_reported(course: Course) -> None:
    path = GIFT / "GIFT-grammar-PEG.js/giftFormatPhpExamples.gift"
    report = import_file(course, "gift", path)
    questions = stored(course)
    assert len(report.questions) == 9
    assert list(skipped_reasons(report)) == ["line 15"]
    assert questions["grant-s-tomb"]["prompt"] == "Grant is _____ in Grant's tomb."
    assert questions["when-was-ulysses-s-grant-born"]["answers"] == [
        {"value": 1822, "tolerance": 5}
    ]


def test_a_negative_tolerance_or_a_weight_that_is_no_number_is_refused(course: Course) -> None:
    data = (
        b"::NegTol:: Two plus three? {#5:-1}\n\n"
        b"::Weight:: Pick one. {~%-1e309%a ~%abc%b =c}\n\n"
        b"::Fine:: Two plus two? {#4:0.5}\n"
    )
    report = interchange_import(course=course, fmt="gift", data=data)
    reasons = " | ".join(item.reason for item in report.skipped)
    assert "tolerance -1 is negative" in reasons
    assert "weight '-1e309' is not a finite number" in reasons
    assert [q.slug for q in report.questions] == ["fine"]


def test_a_name_cut_to_a_title_and_a_range_written_backwards_are_noted(course: Course) -> None:
    """Both are read (the first 200 characters, the range low bound first); the import
    report says so instead of changing them silently."""
    name = "A" * 300
    gift = f"::{name}::How many? {{#5..1}}\n\n::Short::How many? {{#1..5}}\n"
    report = interchange_import(course=course, fmt="gift", data=gift.encode())
    long_one, short = report.questions
    assert "its name of 300 characters was cut to a title of 200" in long_one.notes
    assert "the range 5..1 was read low bound first" in long_one.notes
    assert short.notes == []
    assert stored(course)[short.slug]["answers"][0]["value"] == 3


def test_categories_named_in_other_scripts_stay_apart_under_their_own_titles(
    course: Course,
) -> None:
    gift = (
        "$CATEGORY: $course$/日本語\n\n::Q1::一 {T}\n\n"
        "$CATEGORY: $course$/Русский\n\n::Q2::два {F}\n\n"
        "$CATEGORY: $course$/Русский\n\n::Q3::три {T}\n"
    )
    interchange_import(course=course, fmt="gift", data=gift.encode())
    topics = {q["_topic"] for q in stored(course).values()}
    assert len(topics) == 2
    assert "imported" not in topics
    assert sorted(course.topics.values_list("title", flat=True)) == ["Русский", "日本語"]
    # The same names give the same topics when the file comes again.
    interchange_import(course=course, fmt="gift", data=gift.encode())
    assert course.topics.count() == 2

"""QTI 3.0 export keeps regex answers (`qti-pattern-match` conditions) and per-choice
feedback (`qti-feedback-inline` keyed by the chosen identifier); our QTI import reads both
back."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

import pytest
from django.core.management import call_command

from quizbank.bankfiles import canonicalize
from quizbank.interchange.qti_rules import xsd_pattern
from quizbank.models import Course
from quizbank.services.bank_import import bank_write_question
from quizbank.services.interchange import interchange_export, interchange_import
from tests.quizbank.conftest import FIXTURE_BANK
from tests.quizbank.factories import make_course, make_topic
from tests.quizbank.interchange.helpers import stored

pytestmark = pytest.mark.django_db

REGEX_INSENSITIVE = {
    "type": "short_text",
    "title": "Two axes",
    "prompt": "A tensor with two axes is a",
    "answers": [
        {"regex": "(an? )?matri(x|ces)"},
        {"text": "table", "fraction": 0.5},
        {"regex": "[a-z]*vector", "fraction": 0},
    ],
}
REGEX_SENSITIVE = {
    "type": "short_text",
    "title": "Dtype",
    "prompt": "The default float dtype is",
    "case_sensitive": True,
    "answers": [{"regex": r"torch\.float(32)?"}, {"regex": r"\d+ bits", "fraction": 0.5}],
}
CHOICE = {
    "type": "single_choice",
    "title": "Rank",
    "prompt": "The rank of `torch.zeros(3, 4)`?",
    "choices": [
        {"text": "1", "feedback": "Count the sizes given."},
        {"text": "2", "correct": True, "feedback": "Two sizes, two axes."},
        {"text": "12"},
    ],
}
MULTIPLE = {
    "type": "multiple_choice",
    "title": "Float types",
    "prompt": "Which are floating point?",
    "scoring": "partial",
    "choices": [
        {"text": "float32", "correct": True, "feedback": "Single precision."},
        {"text": "int64", "feedback": "An integer type."},
        {"text": "bfloat16", "correct": True},
    ],
}
TRUE_FALSE = {
    "type": "true_false",
    "title": "Views",
    "prompt": "`view` copies the data.",
    "answer": False,
    "true_feedback": "It shares the storage.",
    "false_feedback": "Right: a view shares the storage.",
}


def course_with(questions: dict[str, dict[str, Any]]) -> Course:
    course = make_course(slug="source")
    topic = make_topic(course=course, slug="t")
    for slug, content in questions.items():
        bank_write_question(
            course=course,
            topic=topic,
            slug=slug,
            question=None,
            content=canonicalize(content),
            user=None,
        )
    return course


def exported_item(course: Course, slug: str) -> str:
    package = interchange_export(course=course, fmt="qti").data
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        return archive.read(f"items/{slug}.xml").decode()


def reimported(course: Course, *, whole: bool = True) -> dict[str, dict[str, Any]]:
    """The questions of `course` after QTI export and import; `whole`: none left out, and
    nothing noted as not kept."""
    fresh = make_course(slug="fresh")
    report = interchange_import(
        course=fresh, fmt="qti", data=interchange_export(course=course, fmt="qti").data
    )
    if whole:
        assert report.skipped == []
        assert all(question.notes == [] for question in report.questions)
    return stored(fresh)


def test_regex_answers_are_written_as_pattern_match_conditions() -> None:
    course = course_with({"two-axes": REGEX_INSENSITIVE, "dtype": REGEX_SENSITIVE})
    insensitive = exported_item(course, "two-axes")
    assert 'pattern="([aA][nN]? )?[mM][aA][tT][rR][iI]([xX]|[cC][eE][sS])"' in insensitive
    assert 'pattern="[A-Za-z]*[vV][eE][cC][tT][oO][rR]"' in insensitive
    assert '<qti-string-match case-sensitive="false">' in insensitive
    assert "map_response" not in insensitive
    assert r'pattern="torch\.float(32)?"' in exported_item(course, "dtype")


def test_regex_answers_and_their_scores_come_back_from_qti() -> None:
    course = course_with({"two-axes": REGEX_INSENSITIVE, "dtype": REGEX_SENSITIVE})
    back = reimported(course)
    assert back["dtype"]["answers"] == REGEX_SENSITIVE["answers"]
    assert back["dtype"]["case_sensitive"] is True
    assert back["two-axes"]["answers"] == [
        {"regex": "(an? )?matri(x|ces)"},
        {"text": "table", "fraction": 0.5},
        {"regex": "[A-Za-z]*vector", "fraction": 0},  # the same match, case being ignored
    ]
    assert "case_sensitive" not in back["two-axes"]


@pytest.mark.parametrize(
    ("regex", "sample", "matches"),
    [
        (r"^(an? )?matri(x|ces)$", "A Matrix", True),
        (r"^(an? )?matri(x|ces)$", "matrixes", False),
        (r"[a-c]x", "Bx", True),
        (r"[^a-c]x", "Bx", False),
        (r"[a-]x", "-X", True),
    ],
)
def test_a_folded_pattern_matches_what_the_bank_regex_matches_ignoring_case(
    regex: str, sample: str, matches: bool
) -> None:
    pattern = xsd_pattern(regex, case_sensitive=False)
    assert (re.fullmatch(pattern, sample) is not None) is matches
    assert (re.fullmatch(regex, sample, re.IGNORECASE) is not None) is matches


def test_per_choice_feedback_is_written_as_inline_feedback_keyed_by_the_choice() -> None:
    course = course_with({"rank": CHOICE})
    item = exported_item(course, "rank")
    assert (
        '<qti-feedback-inline outcome-identifier="FEEDBACK" identifier="C1" show-hide="show">'
        "Two sizes, two axes.</qti-feedback-inline>"
    ) in item
    assert '<qti-outcome-declaration identifier="FEEDBACK" cardinality="single"' in item
    assert '<qti-set-outcome-value identifier="FEEDBACK">' in item
    assert "match_correct" not in item
    assert 'identifier="C2" show-hide' not in item


def test_per_choice_feedback_comes_back_from_qti() -> None:
    course = course_with({"rank": CHOICE, "floats": MULTIPLE, "views": TRUE_FALSE})
    back = reimported(course)
    assert back["rank"]["choices"] == CHOICE["choices"]
    assert back["floats"]["choices"] == MULTIPLE["choices"]
    # A true/false question comes back as one, its feedback on the answer that shows it.
    assert back["views"]["type"] == "true_false"
    assert back["views"]["answer"] is False
    assert back["views"]["true_feedback"] == "It shares the storage."
    assert back["views"]["false_feedback"] == "Right: a view shares the storage."


def test_a_unicode_category_is_not_case_folded() -> None:
    assert xsd_pattern(r"\p{Lu}x", case_sensitive=False) == r"\p{Lu}[xX]"


def test_the_pytorch_bank_keeps_its_regex_answers_and_choice_feedback_through_qti() -> None:
    call_command("bank_import", str(FIXTURE_BANK), stdout=io.StringIO(), stderr=io.StringIO())
    bank = Course.objects.get(slug="pytorch-fundamentals")
    # Its parameterised numeric question has no fixed answer for QTI to hold.
    back, original = reimported(bank, whole=False), stored(bank)
    regexes = feedbacks = 0
    for slug, question in back.items():
        source = original[slug]
        if source["type"] == "short_text":
            assert question["answers"] == [
                {key: re.sub(r"^\^|\$$", "", value) if key == "regex" else value}
                | {k: v for k, v in answer.items() if k == "fraction"}
                for answer in source["answers"]
                for key, value in answer.items()
                if key in ("text", "regex")
            ]
            regexes += sum("regex" in answer for answer in source["answers"])
        if source["type"] in ("single_choice", "multiple_choice"):
            assert question["choices"] == source["choices"]
            feedbacks += sum(bool(choice.get("feedback")) for choice in source["choices"])
    assert regexes > 0
    assert feedbacks > 0


def test_partial_scoring_is_written_as_a_mapping_and_comes_back() -> None:
    choices: list[dict[str, Any]] = MULTIPLE["choices"]  # type: ignore[assignment]
    plain = {
        **MULTIPLE,
        "choices": [{k: v for k, v in c.items() if k != "feedback"} for c in choices],
    }
    course = course_with({"floats": MULTIPLE, "plain": plain})
    item = exported_item(course, "floats")
    assert '<qti-mapping default-value="0" lower-bound="0" upper-bound="1">' in item
    assert '<qti-map-entry map-key="C1" mapped-value="-0.5" />' in item
    assert '<qti-map-response identifier="RESPONSE" />' in item
    assert "map_response.xml" in exported_item(course, "plain")
    back = reimported(course)  # the bank's own rule: nothing noted
    assert back["floats"]["scoring"] == back["plain"]["scoring"] == "partial"
    assert back["floats"]["choices"] == MULTIPLE["choices"]


def test_an_all_or_nothing_multiple_choice_has_no_mapping() -> None:
    strict = {k: v for k, v in MULTIPLE.items() if k != "scoring"}
    course = course_with({"strict": strict})
    assert "qti-mapping" not in exported_item(course, "strict")
    assert "scoring" not in reimported(course)["strict"]


def test_a_text_entry_prompt_comes_back_as_written() -> None:
    prompt = "A tensor with `shape (3, 4)` has\n\n* how many axes?\n"
    course = course_with({"two-axes": {**REGEX_INSENSITIVE, "prompt": prompt}})
    assert reimported(course)["two-axes"]["prompt"] == prompt

"""GIFT feedback after `#`: a true/false question's first feedback is shown for a wrong
answer and its second for a right one; a further unescaped `#` stays in the last feedback,
as Moodle reads it, and the report notes it, so no text vanishes."""

from __future__ import annotations

import pytest

from quizbank.models import Course
from quizbank.services.interchange import interchange_import
from tests.quizbank.factories import make_course
from tests.quizbank.interchange.helpers import notes_of, stored

pytestmark = pytest.mark.django_db


@pytest.fixture
def course() -> Course:
    return make_course(slug="target")


@pytest.mark.parametrize(
    ("answer", "true_feedback", "false_feedback"),
    [
        ("TRUE#Look up.#Right.", "Right.", "Look up."),
        ("T#Look up.#Right.", "Right.", "Look up."),
        ("FALSE#Look again.#Right.", "Look again.", "Right."),
    ],
)
def test_true_false_feedback_goes_where_gift_puts_it(
    course: Course, answer: str, true_feedback: str, false_feedback: str
) -> None:
    report = interchange_import(
        course=course, fmt="gift", data=f"::Sky:: The sky is blue. {{{answer}}}\n".encode()
    )
    question = stored(course)["sky"]
    assert question["answer"] is answer.startswith("T")
    assert (question["true_feedback"], question["false_feedback"]) == (
        true_feedback,
        false_feedback,
    )
    assert notes_of(report, "sky") == []


def test_a_further_hash_in_true_false_feedback_is_kept_and_noted(course: Course) -> None:
    text = b"::Sky:: The sky is blue {TRUE#wrong feedback#right feedback#extra}\n"
    report = interchange_import(course=course, fmt="gift", data=text)
    question = stored(course)["sky"]
    assert question["false_feedback"] == "wrong feedback"
    assert question["true_feedback"] == "right feedback#extra"
    (note,) = notes_of(report, "sky")
    assert "'right feedback#extra'" in note
    assert "\\#" in note


@pytest.mark.parametrize(
    ("text", "slug", "where", "feedback"),
    [
        (b"::Pick:: Pick one {=yes#good#very good ~no}\n", "pick", "choices", "good#very good"),
        (b"::Word:: Say it {=blue#yes#indeed}\n", "word", "answers", "yes#indeed"),
        (b"::Two:: 1 + 1? {#2#right#as 1 + 1}\n", "two", "answers", "right#as 1 + 1"),
    ],
)
def test_a_further_hash_in_answer_feedback_is_kept_and_noted(
    course: Course, text: bytes, slug: str, where: str, feedback: str
) -> None:
    report = interchange_import(course=course, fmt="gift", data=text)
    assert stored(course)[slug][where][0]["feedback"] == feedback
    assert any(repr(feedback) in note for note in notes_of(report, slug))


def test_an_escaped_hash_is_text_and_not_noted(course: Course) -> None:
    text = b"::Sky:: The sky is blue {TRUE#wrong#right \\# one}\n"
    report = interchange_import(course=course, fmt="gift", data=text)
    assert stored(course)["sky"]["true_feedback"] == "right # one"
    assert notes_of(report, "sky") == []

"""What a question is worth (Moodle's defaultgrade, QTI's MAXSCORE) is kept to the two decimals
the bank holds; a value changed by that, or zero, is noted, and one that rounds to zero skips
the question."""

from __future__ import annotations

from decimal import Decimal

import pytest

from quizbank.models import Course
from quizbank.services.interchange import interchange_import
from tests.quizbank.factories import make_course
from tests.quizbank.interchange.helpers import notes_of, qti_text_entry, skipped_reasons

pytestmark = pytest.mark.django_db


def moodle_true_false(grade: str) -> bytes:
    return f"""<quiz><question type="truefalse"><name><text>Sky</text></name>
<questiontext><text>Is the sky blue?</text></questiontext><defaultgrade>{grade}</defaultgrade>
<answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text></answer>
</question></quiz>""".encode()


@pytest.fixture
def course() -> Course:
    return make_course(slug="target")


def test_points_are_kept_to_the_two_decimals_the_bank_holds(course: Course) -> None:
    report = interchange_import(course=course, fmt="moodle", data=moodle_true_false("2.5000000"))
    assert course.questions.get().points == Decimal("2.5")
    assert notes_of(report, "sky") == []


@pytest.mark.parametrize(
    ("fmt", "data", "where"),
    [
        ("moodle", moodle_true_false("0.001"), "defaultgrade 0.001"),
        ("moodle", moodle_true_false("0.0049999"), "defaultgrade 0.0049999"),
        ("qti", qti_text_entry("0.001", "1"), "MAXSCORE 0.001"),
    ],
)
def test_points_that_round_to_zero_skip_the_question_saying_so(
    course: Course, fmt: str, data: bytes, where: str
) -> None:
    report = interchange_import(course=course, fmt=fmt, data=data)
    assert report.questions == []
    (reason,) = skipped_reasons(report).values()
    assert reason.startswith(where)
    assert "rounds to 0" in reason
    assert not course.questions.exists()


@pytest.mark.parametrize(
    ("fmt", "data", "slug", "points", "note"),
    [
        (
            "moodle",
            moodle_true_false("1.005"),
            "sky",
            Decimal("1.01"),
            "defaultgrade 1.005 was rounded to 1.01 points",
        ),
        (
            "qti",
            qti_text_entry("2.3333333", "1"),
            "word",
            Decimal("2.33"),
            "MAXSCORE 2.3333333 was rounded to 2.33 points",
        ),
        (
            "moodle",
            moodle_true_false("0"),
            "sky",
            Decimal("0"),
            "defaultgrade 0: the question is worth no points",
        ),
    ],
)
def test_points_changed_by_rounding_or_worth_nothing_are_noted(
    course: Course, fmt: str, data: bytes, slug: str, points: Decimal, note: str
) -> None:
    report = interchange_import(course=course, fmt=fmt, data=data)
    assert course.questions.get().points == points
    assert any(line.startswith(note) for line in notes_of(report, slug))

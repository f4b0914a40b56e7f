"""A question no answer can score on (every answer's fraction, weight or mapped value 0 or
less) is skipped saying so, whatever the format."""

from __future__ import annotations

import pytest

from quizbank.models import Course
from quizbank.services.interchange import interchange_import
from tests.quizbank.factories import make_course
from tests.quizbank.interchange.helpers import notes_of, qti_text_entry, skipped_reasons, stored

pytestmark = pytest.mark.django_db


@pytest.fixture
def course() -> Course:
    return make_course(slug="target")


MOODLE_SHORT_ANSWER = b"""<quiz><question type="shortanswer"><name><text>Sky</text></name>
<questiontext><text>What colour is the sky?</text></questiontext>
<answer fraction="0"><text>blue</text></answer><answer fraction="0"><text>grey</text></answer>
</question></quiz>"""
MOODLE_NUMERICAL = b"""<quiz><question type="numerical"><name><text>Two</text></name>
<questiontext><text>1 + 1?</text></questiontext>
<answer fraction="0"><text>2</text></answer></question></quiz>"""


@pytest.mark.parametrize(
    ("fmt", "data"),
    [
        ("qti", qti_text_entry(None, "-1", "-0.5")),
        ("qti", qti_text_entry(None, "0", "-2")),
        ("moodle", MOODLE_SHORT_ANSWER),
        ("moodle", MOODLE_NUMERICAL),
        ("gift", b"::Sky:: What colour is the sky? {=%0%blue =%0%grey}\n"),
        ("gift", b"::Two:: 1 + 1? {#=%0%2}\n"),
    ],
)
def test_a_question_no_answer_scores_on_is_skipped_saying_so(
    course: Course, fmt: str, data: bytes
) -> None:
    report = interchange_import(course=course, fmt=fmt, data=data)
    assert report.questions == []
    (reason,) = skipped_reasons(report).values()
    assert "answers: no answer earns marks" in reason
    assert not course.questions.exists()


def test_negative_mapped_values_are_noted_when_another_answer_scores(course: Course) -> None:
    report = interchange_import(course=course, fmt="qti", data=qti_text_entry(None, "2", "-1"))
    answers = stored(course)["word"]["answers"]
    assert [answer.get("fraction", 1) for answer in answers] == [1, 0]
    assert any("mappedValue -1" in note for note in notes_of(report, "word"))

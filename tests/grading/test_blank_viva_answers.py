"""A written viva answer left blank scores 0 when submitted, like any other unanswered
question, and waits for no examiner; an oral one still does (its answer is spoken)."""

from typing import Any

import pytest
from django.utils import timezone

from grading.models import AttemptStatus, Response, ResponseStatus
from grading.selectors.marking import marking_queue
from grading.services.marking.marks import MarkInput, mark_create
from tests.grading.content import SINGLE, VIVA
from tests.grading.factories import staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("answers", [{}, {0: {"text": "  \n\t "}}], ids=["none", "white space"])
def test_a_blank_written_answer_scores_0_at_once_and_leaves_the_queue(
    answers: dict[int, Any],
) -> None:
    staff, _ = staffed_quiz(VIVA)
    attempt = submitted_attempt(staff.quiz, staff.student, answers)
    response = attempt.responses.get()
    assert (response.status, response.score) == (ResponseStatus.GRADED, 0.0)
    assert response.feedback == {"general": "No answer was given."}
    assert attempt.status == AttemptStatus.GRADED
    assert not marking_queue(staff.examiner).filter(pk=response.pk).exists()


def test_a_written_answer_waits_for_its_examiner() -> None:
    staff, _ = staffed_quiz(VIVA)
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "It sums."}})
    response = attempt.responses.get()
    assert (response.status, response.score) == (ResponseStatus.NEEDS_MARKING, None)
    assert marking_queue(staff.examiner).filter(pk=response.pk).exists()


def test_an_oral_question_has_nothing_typed_and_still_waits_for_its_examiner() -> None:
    staff, _ = staffed_quiz(SINGLE, {**VIVA, "mode": "oral"})
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}})
    oral = attempt.responses.get(position=1)
    assert (oral.status, oral.score) == (ResponseStatus.NEEDS_MARKING, None)
    assert attempt.status == AttemptStatus.SUBMITTED
    assert marking_queue(staff.examiner).filter(pk=oral.pk).exists()


def test_an_examiner_may_still_mark_a_blank_answer_and_it_is_listed_again() -> None:
    staff, _ = staffed_quiz(VIVA)
    response = submitted_attempt(staff.quiz, staff.student, {}).responses.get()
    mark_create(
        response_id=response.pk,
        marker=staff.examiner,
        data=MarkInput([1], comment="Answered on paper in the room."),
        now=timezone.now(),
    )
    marked = Response.objects.get(pk=response.pk)
    assert marked.status == ResponseStatus.GRADED
    assert marked.score == 0.5  # level 1 of the rubric's 2 points
    assert marking_queue(staff.examiner).filter(pk=response.pk).exists()

"""A numeric question stored before the bank refused its answer value (one beyond the size a
number may have): grading it never fails the submit, and an examiner sees why it was not
graded."""

import re
from datetime import UTC, datetime, timedelta

import pytest

from grading.models import Attempt, AttemptStatus, Response, ResponseStatus
from grading.scoring import UnscorableQuestion, score_answer
from grading.services.attempts import attempt_start
from grading.services.responses import attempts_close_overdue, response_autosave
from quizbank.models import Quiz, Role
from tests.grading.content import NUMERIC
from tests.grading.factories import add_slots, api_as, member, new_course, new_quiz, question

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
LEGACY = {**NUMERIC, "answers": [{"value": 11}, {"value": 1e200, "fraction": 0.5}]}
REASON = "answer 2 of the question: the number is too large: it must be at most 1e+100 in size"


@pytest.fixture
def quiz() -> Quiz:
    """A 30-minute quiz over one numeric question written straight to the database."""
    course = new_course()
    made = new_quiz(course=course, time_limit=timedelta(minutes=30))
    add_slots(made, question(course, LEGACY))
    return made


def assert_unscorable(response: Response) -> None:
    assert (response.status, response.score) == (ResponseStatus.ERROR, None)
    assert response.feedback == {"general": f"This question cannot be graded: {REASON}."}


def test_scoring_names_the_answer_the_question_cannot_be_scored_by() -> None:
    with pytest.raises(UnscorableQuestion, match=f"^{re.escape(REASON)}$"):
        score_answer(LEGACY, {"value": 11})
    tolerance = {**NUMERIC, "answers": [{"value": 11, "tolerance": 10**400}]}
    with pytest.raises(UnscorableQuestion, match="^answer 1 of the question: the number"):
        score_answer(tolerance, {"value": 11})


def test_a_submit_is_answered_and_the_answer_is_an_error_an_examiner_sees(quiz: Quiz) -> None:
    student = api_as(member(quiz.course, Role.STUDENT))
    attempt = student.post(f"/api/quizzes/{quiz.pk}/attempts/").json()["id"]
    saved = student.put(
        f"/api/attempts/{attempt}/responses/0/", {"answer": {"value": 11}, "version": 0}
    )
    assert saved.status_code == 200, saved.content
    submitted = student.post(f"/api/attempts/{attempt}/submit/")
    assert submitted.status_code == 200, submitted.content
    assert Attempt.objects.get(pk=attempt).status == AttemptStatus.SUBMITTED
    assert_unscorable(Response.objects.get(attempt_id=attempt))


def test_the_overdue_closer_closes_the_attempt(quiz: Quiz) -> None:
    attempt = attempt_start(quiz=quiz, user=member(quiz.course, Role.STUDENT), now=T0)
    response_autosave(attempt=attempt, position=0, answer={"value": 11}, version=0, now=T0)
    assert attempts_close_overdue(now=T0 + timedelta(hours=1)) == 1
    attempt.refresh_from_db()
    assert (attempt.status, attempt.auto_submitted) == (AttemptStatus.SUBMITTED, True)
    assert_unscorable(Response.objects.get(attempt=attempt))

"""The list of live viva sessions: scope, row shape, filters and ordering."""

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from grading.models.viva_sessions import VivaSession
from grading.services.marking.marks import MarkInput, mark_create
from grading.services.viva_sessions import (
    Pool,
    viva_session_draw,
    viva_session_end,
    viva_session_start,
)
from quizbank.models import ReleasePolicy, Role
from tests.grading.content import VIVA_TWO_CRITERIA
from tests.grading.factories import Staff, api_as, member, question, staffed_quiz

pytestmark = pytest.mark.django_db

START = timezone.now() - timedelta(hours=2)


@pytest.fixture
def staff() -> Staff:
    made, _ = staffed_quiz(VIVA_TWO_CRITERIA)
    made.quiz.release_policy = ReleasePolicy.MANUAL
    made.quiz.save()
    question(made.course, {**VIVA_TWO_CRITERIA, "title": "Broadcasting"}, points="6")
    return made


def _ended_session(staff: Staff, student: User) -> VivaSession:
    """A session of `staff.examiner` with one drawn, marked question, then ended."""
    session = viva_session_start(
        quiz=staff.quiz, student=student, examiner=staff.examiner, now=START
    )
    drawn = viva_session_draw(session=session, pool=Pool(), now=START)
    mark_create(
        response_id=drawn.pk, marker=staff.examiner, data=MarkInput(levels=[2, 1]), now=START
    )
    return viva_session_end(session=session, now=START + timedelta(minutes=20))


@pytest.fixture
def sessions(staff: Staff) -> tuple[VivaSession, VivaSession, User]:
    """An ended session with the first examiner, and a later open one with the second."""
    other_student = member(staff.course, Role.STUDENT)
    ended = _ended_session(staff, staff.student)
    later = START + timedelta(hours=1)
    open_ = viva_session_start(
        quiz=staff.quiz, student=other_student, examiner=staff.second, now=later
    )
    return ended, open_, other_student


def _ids(staff: Staff, **params: Any) -> list[int]:
    reply = api_as(staff.examiner).get("/api/viva-sessions/", params)
    assert reply.status_code == 200, reply.content
    return [row["id"] for row in reply.json()["results"]]


def test_the_list_shows_each_session_newest_first_with_its_questions_drawn(
    staff: Staff, sessions: Any
) -> None:
    ended, open_, other_student = sessions
    body = api_as(staff.examiner).get("/api/viva-sessions/").json()
    assert body["count"] == 2
    newest, oldest = body["results"]
    assert newest["id"] == open_.pk
    assert (newest["student"], newest["examiner"]) == (
        other_student.username,
        staff.second.username,
    )
    assert (newest["status"], newest["ended_at"], newest["questions"]) == ("open", None, 0)
    assert oldest == {
        "id": ended.pk,
        "course": staff.course.pk,
        "quiz": staff.quiz.pk,
        "attempt": ended.attempt_id,
        "student_id": staff.student.pk,
        "student": staff.student.username,
        "examiner_id": staff.examiner.pk,
        "examiner": staff.examiner.username,
        "status": "ended",
        "started_at": oldest["started_at"],
        "ended_at": oldest["ended_at"],
        "questions": 1,
    }
    assert oldest["ended_at"] > oldest["started_at"]


def test_the_list_filters_by_student_examiner_course_and_status(
    staff: Staff, sessions: Any
) -> None:
    ended, open_, other_student = sessions
    assert _ids(staff, student=other_student.pk) == [open_.pk]
    assert _ids(staff, examiner=staff.examiner.pk) == [ended.pk]
    assert _ids(staff, status="ended") == [ended.pk]
    assert _ids(staff, ended="true") == [ended.pk]
    assert _ids(staff, ended="false") == [open_.pk]
    assert _ids(staff, course=staff.course.pk) == [open_.pk, ended.pk]
    assert _ids(staff, course=staff.course.pk + 1000) == []


def test_the_list_orders_by_start_time_on_request(staff: Staff, sessions: Any) -> None:
    ended, open_, _ = sessions
    assert _ids(staff, ordering="started_at") == [ended.pk, open_.pk]
    assert _ids(staff, ordering="-started_at") == [open_.pk, ended.pk]


def test_a_bad_filter_value_gets_a_400_naming_the_filter(staff: Staff, sessions: Any) -> None:
    reply = api_as(staff.examiner).get("/api/viva-sessions/", {"status": "paused"})
    assert reply.status_code == 400
    assert "status" in reply.json()["error"]["fields"]


def test_the_student_and_an_examiner_of_another_course_see_no_sessions(
    staff: Staff, sessions: Any
) -> None:
    for user in (staff.student, staff.outsider):
        assert api_as(user).get("/api/viva-sessions/").json()["count"] == 0

"""A quiz's terms changing while attempts are open: a close (or a close brought forward)
ends open attempts, a later close or an override extends them, and times so far ahead that
a deadline plus grace would leave the calendar are refused when written."""

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from grading.models import Attempt, AttemptStatus
from quizbank.errors import AccessRuleInvalid, QuizInvalid
from quizbank.models import Quiz, Role
from quizbank.services.quiz_overrides import OverrideInput, quiz_override_set
from quizbank.services.quiz_write import quiz_update
from tests.api.conftest import World
from tests.api.helpers import save, start
from tests.grading.factories import member

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _api(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _patch_quiz(world: World, **body: Any) -> Any:
    return _api(world.author).patch(f"/api/quizzes/{world.quiz.pk}/", body, format="json")


def _started(world: World, at: datetime) -> dict[str, Any]:
    with time_machine.travel(at, tick=False):
        return start(_api(world.student), world.quiz.pk)


def _save_at(world: World, attempt: int, at: datetime) -> Any:
    with time_machine.travel(at, tick=False):
        return save(_api(world.student), attempt, 0, {"choice": 0})


def test_closing_the_quiz_ends_an_untimed_attempt_that_is_open(world: World) -> None:
    attempt = _started(world, T0)
    assert attempt["deadline"] is None
    with time_machine.travel(T0 + timedelta(minutes=5), tick=False):
        closed = _api(world.author).post(f"/api/quizzes/{world.quiz.pk}/close/")
    assert closed.status_code == 200
    refused = _save_at(world, attempt["id"], T0 + timedelta(minutes=6))
    assert refused.status_code == 409
    assert Attempt.objects.get(pk=attempt["id"]).deadline == T0 + timedelta(minutes=5)


def test_a_close_brought_forward_ends_open_attempts_after_the_grace_period(
    world: World,
) -> None:
    world.quiz.closes_at = T0 + timedelta(hours=2)
    world.quiz.grace_period = timedelta(minutes=2)
    world.quiz.save()
    attempt = _started(world, T0)
    with time_machine.travel(T0 + timedelta(minutes=1), tick=False):
        moved = _patch_quiz(world, closes_at=(T0 + timedelta(minutes=30)).isoformat())
    assert moved.status_code == 200, moved.content
    assert _save_at(world, attempt["id"], T0 + timedelta(minutes=31)).status_code == 200
    assert _save_at(world, attempt["id"], T0 + timedelta(minutes=33)).status_code == 409


def test_a_later_close_or_a_students_override_extends_the_open_attempt(world: World) -> None:
    world.quiz.closes_at = T0 + timedelta(minutes=30)
    world.quiz.save()
    attempt = _started(world, T0)
    assert attempt["deadline"] == "2026-03-02T09:30:00Z"
    with time_machine.travel(T0 + timedelta(minutes=1), tick=False):
        _patch_quiz(world, closes_at=(T0 + timedelta(hours=1)).isoformat())
        url = f"/api/quizzes/{world.quiz.pk}/access/overrides/{world.student.pk}/"
        later = (T0 + timedelta(hours=3)).isoformat()
        assert _api(world.author).put(url, {"closes_at": later}, format="json").status_code == 200
    assert Attempt.objects.get(pk=attempt["id"]).deadline == T0 + timedelta(hours=3)
    with time_machine.travel(T0 + timedelta(minutes=2), tick=False):
        assert _api(world.author).delete(url).status_code == 204
    assert Attempt.objects.get(pk=attempt["id"]).deadline == T0 + timedelta(hours=1)


def test_a_shorter_time_limit_submits_an_attempt_already_past_it(world: World) -> None:
    world.quiz.time_limit = timedelta(hours=1)
    world.quiz.save()
    attempt = _started(world, T0)
    other = member(world.course, Role.STUDENT)
    with time_machine.travel(T0 + timedelta(minutes=40), tick=False):
        fresh = start(_api(other), world.quiz.pk)
        assert _patch_quiz(world, time_limit="00:30:00").status_code == 200
    past = Attempt.objects.get(pk=attempt["id"])
    assert past.status != AttemptStatus.OPEN
    assert past.auto_submitted
    kept = Attempt.objects.get(pk=fresh["id"])
    assert kept.status == AttemptStatus.OPEN
    assert kept.deadline == T0 + timedelta(minutes=70)


@pytest.mark.parametrize(
    "body",
    [
        {"closes_at": "9999-12-31T23:00:00Z", "grace_period": "2 00:00:00"},
        {"opens_at": "9500-01-01T00:00:00Z"},
        {"grace_period": "31 00:00:00"},
        {"time_limit": "999999 00:00:00"},
        {"grace_period": "-00:01:00"},
    ],
)
def test_times_beyond_what_a_deadline_can_reach_are_refused_naming_the_field(
    world: World, body: dict[str, str]
) -> None:
    reply = _patch_quiz(world, **body)
    assert reply.status_code == 400, reply.content
    assert set(reply.json()["error"]["fields"]) & set(body)
    assert Quiz.objects.get(pk=world.quiz.pk).closes_at is None


def test_an_override_closing_beyond_the_calendar_is_refused(world: World) -> None:
    url = f"/api/quizzes/{world.quiz.pk}/access/overrides/{world.student.pk}/"
    reply = _api(world.author).put(url, {"closes_at": "9999-12-31T23:00:00Z"}, format="json")
    assert reply.status_code == 400
    assert list(reply.json()["error"]["fields"]) == ["closes_at"]


def test_who_is_not_a_student_looks_the_same_as_who_does_not_exist(world: World) -> None:
    """An author learns no username, and not whether an account exists or is active."""
    gone = member(world.course, Role.STUDENT)
    gone.is_active = False
    gone.save()
    bodies = {}
    for user_id in (world.examiner.pk, gone.pk, 999999):
        url = f"/api/quizzes/{world.quiz.pk}/access/overrides/{user_id}/"
        reply = _api(world.author).put(url, {"extra_attempts": 1}, format="json")
        assert reply.status_code == 404
        bodies[user_id] = reply.json()["error"]["message"].replace(str(user_id), "ID")
    assert len(set(bodies.values())) == 1
    assert world.examiner.username not in str(bodies)


def test_a_longer_grace_or_limit_does_not_reopen_an_attempt_whose_answers_closed(
    world: World,
) -> None:
    world.quiz.time_limit = timedelta(minutes=10)
    world.quiz.save()
    attempt = _started(world, T0)
    assert _save_at(world, attempt["id"], T0 + timedelta(minutes=11)).status_code == 409
    with time_machine.travel(T0 + timedelta(minutes=12), tick=False):
        longer = _patch_quiz(world, grace_period="00:10:00", time_limit="01:00:00")
    assert longer.status_code == 200, longer.content
    assert Attempt.objects.get(pk=attempt["id"]).status != AttemptStatus.OPEN
    assert _save_at(world, attempt["id"], T0 + timedelta(minutes=13)).status_code == 409


def test_a_time_before_1900_is_refused_by_the_service_every_page_and_api_use(world: World) -> None:
    """The builder and access pages once stored year 1 at +05:00, which is year 0 in UTC:
    every page reading it then failed."""
    year_one = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))
    with pytest.raises(QuizInvalid) as refused:
        quiz_update(quiz=world.quiz, data={"opens_at": year_one}, slots=None)
    assert list(refused.value.fields) == ["opens_at"]
    with pytest.raises(AccessRuleInvalid) as refused_override:
        quiz_override_set(
            quiz=world.quiz, student=world.student, data=OverrideInput(opens_at=year_one)
        )
    assert list(refused_override.value.fields) == ["opens_at"]
    assert Quiz.objects.get(pk=world.quiz.pk).opens_at is None

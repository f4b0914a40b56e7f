"""Server-side deadlines with a frozen clock: late answers, grace, auto-submit."""

from datetime import UTC, datetime, timedelta

import time_machine
from rest_framework.test import APIClient

from grading.models import Attempt
from grading.tasks import close_overdue_attempts
from tests.api.conftest import World
from tests.api.helpers import save, start, submit

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _timed(world: World, *, closes_in: timedelta | None = None) -> None:
    world.quiz.time_limit = timedelta(minutes=30)
    world.quiz.grace_period = timedelta(seconds=30)
    world.quiz.closes_at = T0 + closes_in if closes_in else None
    world.quiz.save()


def test_the_deadline_is_the_start_plus_the_time_limit(
    world: World, student_api: APIClient
) -> None:
    _timed(world)
    with time_machine.travel(T0, tick=False):
        attempt = start(student_api, world.quiz.pk)
    assert attempt["deadline"] == "2026-03-02T09:30:00Z"
    assert attempt["answers_close_at"] == "2026-03-02T09:30:30Z"


def test_the_close_time_caps_the_deadline(world: World, student_api: APIClient) -> None:
    _timed(world, closes_in=timedelta(minutes=10))
    with time_machine.travel(T0, tick=False):
        attempt = start(student_api, world.quiz.pk)
    assert attempt["deadline"] == "2026-03-02T09:10:00Z"


def test_an_answer_in_the_grace_period_is_saved(world: World, student_api: APIClient) -> None:
    _timed(world)
    with time_machine.travel(T0, tick=False) as clock:
        attempt = start(student_api, world.quiz.pk)
        clock.move_to(T0 + timedelta(minutes=30, seconds=20))
        assert save(student_api, attempt["id"], 0, {"choice": 0}).status_code == 200


def test_an_answer_after_deadline_and_grace_is_refused_and_the_attempt_submitted(
    world: World, student_api: APIClient
) -> None:
    _timed(world)
    with time_machine.travel(T0, tick=False) as clock:
        attempt = start(student_api, world.quiz.pk)
        save(student_api, attempt["id"], 0, {"choice": 0})
        save(student_api, attempt["id"], 5, {"text": "Each backward adds to .grad."})
        clock.move_to(T0 + timedelta(minutes=31))
        late = save(student_api, attempt["id"], 1, {"choices": [0]})
        assert late.status_code == 409
        assert late.json()["error"]["code"] == "deadline_passed"
        shown = student_api.get(f"/api/attempts/{attempt['id']}/").json()
    assert shown["auto_submitted"] is True
    assert shown["status"] == "submitted"
    assert shown["responses"][0]["score"] == 1.0  # what was saved before the deadline counts


def test_a_late_submit_counts_what_was_saved(world: World, student_api: APIClient) -> None:
    _timed(world)
    with time_machine.travel(T0, tick=False) as clock:
        attempt = start(student_api, world.quiz.pk)
        save(student_api, attempt["id"], 0, {"choice": 0})
        save(student_api, attempt["id"], 5, {"text": "Each backward adds to .grad."})
        clock.move_to(T0 + timedelta(hours=2))
        result = submit(student_api, attempt["id"]).json()
    assert result["auto_submitted"] is True
    # The saved choice counts; the written viva waits for a marker, so no total yet.
    assert result["responses"][0]["points_awarded"] == "1.000"
    assert (result["pending"], result["score"]) == (True, None)


def test_the_beat_task_submits_overdue_attempts_only(world: World, student_api: APIClient) -> None:
    _timed(world)
    with time_machine.travel(T0, tick=False) as clock:
        overdue = start(student_api, world.quiz.pk)
        clock.move_to(T0 + timedelta(minutes=30, seconds=10))
        assert close_overdue_attempts() == 0  # still inside the grace period
        clock.move_to(T0 + timedelta(minutes=31))
        assert close_overdue_attempts() == 1
    attempt = Attempt.objects.get(pk=overdue["id"])
    assert attempt.auto_submitted
    assert attempt.submitted_at == T0 + timedelta(minutes=31)


def test_a_quiz_cannot_be_started_before_it_opens_or_after_it_closes(
    world: World, student_api: APIClient
) -> None:
    world.quiz.opens_at, world.quiz.closes_at = T0, T0 + timedelta(days=1)
    world.quiz.save()
    for moment in (T0 - timedelta(minutes=1), T0 + timedelta(days=2)):
        with time_machine.travel(moment, tick=False):
            reply = student_api.post(f"/api/quizzes/{world.quiz.pk}/attempts/")
        assert reply.status_code == 409
        assert reply.json()["error"]["code"] == "quiz_not_open"

"""Time per question: autosaves credit the gap since the attempt's last activity (capped)."""

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User

from grading.models import Attempt, Response
from tests.grading.content import NUMERIC, SINGLE
from tests.grading.factories import Staff, api_as, member, staffed_quiz

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
ANSWERS = {0: {"choice": 0}, 1: {"value": 11}}


@pytest.fixture
def staff() -> Staff:
    made, _ = staffed_quiz(SINGLE, NUMERIC, points="2")
    return made


def _take(staff: Staff, student: User, saves: list[tuple[int, int]]) -> int:
    """Start at T0, then autosave (seconds after the previous save, position) in order."""
    client, versions, now = api_as(student), {0: 0, 1: 0}, T0
    with time_machine.travel(T0, tick=False) as clock:
        attempt = client.post(f"/api/quizzes/{staff.quiz.pk}/attempts/").json()["id"]
        for after, position in saves:
            now += timedelta(seconds=after)
            clock.move_to(now)
            body = {"answer": ANSWERS[position], "version": versions[position]}
            reply = client.put(
                f"/api/attempts/{attempt}/responses/{position}/", body, format="json"
            )
            assert reply.status_code == 200, reply.content
            versions[position] = reply.json()["version"]
        assert client.post(f"/api/attempts/{attempt}/submit/").status_code == 200
    return int(attempt)


def _seconds(attempt: int) -> list[float]:
    rows = Response.objects.filter(attempt_id=attempt).order_by("position")
    return [r.time_spent.total_seconds() for r in rows]


def test_each_autosave_credits_the_gap_to_the_question_it_saves(staff: Staff) -> None:
    attempt = _take(staff, staff.student, [(30, 0), (45, 1)])
    assert _seconds(attempt) == [30.0, 45.0]
    assert Attempt.objects.get(pk=attempt).last_activity_at == T0 + timedelta(seconds=75)


def test_a_long_gap_counts_only_up_to_the_cap(staff: Staff) -> None:
    attempt = _take(staff, staff.student, [(30, 0), (45, 1), (20 * 60, 0)])
    assert _seconds(attempt) == [30.0 + 10 * 60, 45.0]


def test_a_stale_autosave_credits_no_time(staff: Staff) -> None:
    client = api_as(staff.student)
    with time_machine.travel(T0, tick=False) as clock:
        attempt = client.post(f"/api/quizzes/{staff.quiz.pk}/attempts/").json()["id"]
        url = f"/api/attempts/{attempt}/responses/0/"
        clock.move_to(T0 + timedelta(seconds=20))
        client.put(url, {"answer": ANSWERS[0], "version": 0}, format="json")
        clock.move_to(T0 + timedelta(seconds=50))
        stale = client.put(url, {"answer": {"choice": 1}, "version": 0}, format="json")
    assert stale.status_code == 409
    assert _seconds(attempt) == [20.0, 0.0]
    assert Attempt.objects.get(pk=attempt).last_activity_at == T0 + timedelta(seconds=20)


def _statistics(staff: Staff) -> tuple[dict[str, Any], list[dict[str, str]]]:
    examiner = api_as(staff.examiner)
    body = examiner.get(f"/api/quizzes/{staff.quiz.pk}/statistics/").json()
    text = examiner.get(f"/api/quizzes/{staff.quiz.pk}/statistics.csv").content.decode()
    return body, list(csv.DictReader(io.StringIO(text)))


def test_statistics_show_the_mean_time_per_question(staff: Staff) -> None:
    other = member(staff.course, "student", User.objects.create(username="second-student"))
    _take(staff, staff.student, [(30, 0), (45, 1)])
    _take(staff, other, [(90, 0), (15, 1)])
    body, rows = _statistics(staff)
    assert [q["mean_time_s"] for q in body["questions"]] == [60.0, 30.0]
    assert [row["mean_time_s"] for row in rows] == ["60.0000", "30.0000"]


def test_questions_without_recorded_time_have_no_mean(staff: Staff) -> None:
    _take(staff, staff.student, [(0, 0), (0, 1)])
    body, rows = _statistics(staff)
    assert [q["mean_time_s"] for q in body["questions"]] == [None, None]
    assert [row["mean_time_s"] for row in rows] == ["", ""]

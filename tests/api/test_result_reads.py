"""Reading an attempt back (its result and its page data): who may, what a read costs, and a
read that closes an overdue attempt."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from rest_framework.test import APIClient

from quizbank.models import Role
from tests.api.conftest import World
from tests.api.helpers import save, start, submit
from tests.grading.factories import member

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
READS = ["/api/attempts/{}/result/", "/api/attempts/{}/"]


def _client(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.parametrize("path", READS)
def test_a_read_of_a_submitted_attempt_is_two_statements(
    world: World, student_api: APIClient, path: str, django_assert_num_queries: Any
) -> None:
    attempt = start(student_api, world.quiz.pk)
    save(student_api, attempt["id"], 0, {"choice": 0})
    submit(student_api, attempt["id"])
    # The answers with their attempt, quiz and course (access decided on that row), then the
    # score changes since release: a poll every few seconds from every student of an exam.
    with django_assert_num_queries(2):
        reply = student_api.get(path.format(attempt["id"]))
    assert reply.status_code == 200


@pytest.mark.parametrize("path", READS)
def test_only_the_owner_and_the_courses_examiners_read_an_attempt(
    world: World, student_api: APIClient, path: str
) -> None:
    attempt = start(student_api, world.quiz.pk)
    submit(student_api, attempt["id"])
    classmate = member(world.course, Role.STUDENT)
    author = world.author
    for outsider in (classmate, author):
        reply = _client(outsider).get(path.format(attempt["id"]))
        assert reply.status_code == 404, outsider
    assert _client(world.examiner).get(path.format(attempt["id"])).status_code == 200
    assert student_api.get(path.format(attempt["id"] + 1000)).status_code == 404


def test_reading_the_result_of_an_overdue_attempt_submits_it_and_shows_the_grades(
    world: World, student_api: APIClient
) -> None:
    world.quiz.time_limit = timedelta(minutes=30)
    world.quiz.grace_period = timedelta(seconds=30)
    world.quiz.save()
    with time_machine.travel(T0, tick=False) as clock:
        attempt = start(student_api, world.quiz.pk)
        save(student_api, attempt["id"], 0, {"choice": 0})
        clock.move_to(T0 + timedelta(minutes=31))
        result = student_api.get(f"/api/attempts/{attempt['id']}/result/").json()
    # The answers are read again after the close: graded, not the open attempt's `saved`.
    assert result["status"] == "graded"
    assert result["questions"][0]["status"] == "graded"
    assert result["questions"][0]["score"] == 1.0
    assert result["score"] == "1.000"

"""Attempts allowed, grading across attempts and the penalty per extra attempt."""

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from grading.selectors import quiz_grade
from quizbank.models import GradingMethod
from tests.api.conftest import World
from tests.api.helpers import save, start, submit


def _attempt(client: APIClient, quiz_id: int, right: bool) -> None:
    attempt = start(client, quiz_id)
    save(client, attempt["id"], 0, {"choice": 0 if right else 1})
    save(client, attempt["id"], 3, {"value": 11 if right else 6})
    submit(client, attempt["id"])


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        (GradingMethod.HIGHEST, "2.000"),
        (GradingMethod.LAST, "0.000"),
        (GradingMethod.AVERAGE, "1.000"),
    ],
)
def test_the_grading_method_combines_attempts(
    world: World, student_api: APIClient, method: str, expected: str
) -> None:
    world.quiz.slots.filter(position=5).delete()  # no viva: every attempt grades at once
    world.quiz.grading_method = method
    world.quiz.save()
    _attempt(student_api, world.quiz.pk, right=True)
    _attempt(student_api, world.quiz.pk, right=False)
    assert student_api.get(f"/api/quizzes/{world.quiz.pk}/grade/").json()["grade"] == expected


def test_an_attempt_waiting_for_marking_has_no_grade_yet(
    world: World, student_api: APIClient
) -> None:
    attempt = start(student_api, world.quiz.pk)
    save(student_api, attempt["id"], 5, {"text": "Each backward adds to .grad."})
    submit(student_api, attempt["id"])
    assert student_api.get(f"/api/quizzes/{world.quiz.pk}/grade/").json()["grade"] is None


def test_each_extra_attempt_costs_the_penalty(world: World, student_api: APIClient) -> None:
    world.quiz.slots.filter(position=5).delete()
    world.quiz.penalty_per_attempt = 0.25
    world.quiz.save()
    _attempt(student_api, world.quiz.pk, right=False)
    _attempt(student_api, world.quiz.pk, right=True)
    assert quiz_grade(world.quiz, world.student.pk) == Decimal("1.500")


def test_no_attempt_starts_past_the_limit(world: World, student_api: APIClient) -> None:
    world.quiz.attempts_allowed = 1
    world.quiz.save()
    _attempt(student_api, world.quiz.pk, right=True)
    reply = student_api.post(f"/api/quizzes/{world.quiz.pk}/attempts/")
    assert reply.status_code == 409
    assert reply.json()["error"]["code"] == "no_attempts_left"

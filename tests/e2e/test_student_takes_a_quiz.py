"""A demo-like student takes a quiz of every kind through the API, graded by a real worker."""

import time
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from config.celery_workers import worker_processes
from quizbank.models import Role
from tests.grading.content import CODE, NUMERIC, SHORT_TEXT, SINGLE, VIVA
from tests.grading.factories import add_slots, member, new_course, new_quiz, question

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

ANSWERS: list[Any] = [
    {"choice": 0},
    {"value": 11},
    {"text": "grad_fn"},
    {"source": "def double(x):\n    return x * 2\n"},
    {"text": "backward adds into .grad so gradients from every use are summed."},
]


def _client_for(user: User) -> APIClient:
    client = APIClient()  # token auth, as an API client would use it
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def _poll_until_code_graded(client: APIClient, attempt: int) -> dict[str, Any]:
    for _ in range(1200):
        result: dict[str, Any] = client.get(f"/api/attempts/{attempt}/result/").json()
        if result["questions"][3]["status"] == "graded":
            return result
        time.sleep(0.05)
    raise AssertionError("the code answer was not graded within a minute")


def test_the_student_gets_a_scored_attempt_with_feedback_per_question(redis_url: str) -> None:
    course = new_course(slug="pytorch-fundamentals")
    quiz = new_quiz(course=course, shuffle_choices=False)
    add_slots(
        quiz,
        *[question(course, c) for c in (SINGLE, NUMERIC, SHORT_TEXT)],
        question(course, CODE, points="3"),
        question(course, VIVA, points="4"),
    )
    client = _client_for(member(course, Role.STUDENT))

    with worker_processes(redis_url):
        attempt = client.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
        for position, answer in enumerate(ANSWERS):
            saved = client.put(
                f"/api/attempts/{attempt['id']}/responses/{position}/",
                {"answer": answer, "version": 0},
                format="json",
            )
            assert saved.status_code == 200, saved.content
        submitted = client.post(f"/api/attempts/{attempt['id']}/submit/").json()
        assert submitted["responses"][3]["status"] in ("queued", "running", "graded")
        result = _poll_until_code_graded(client, attempt["id"])

    assert [q["status"] for q in result["questions"]] == ["graded"] * 4 + ["needs_marking"]
    assert [q["score"] for q in result["questions"][:4]] == [1.0, 1.0, 1.0, 1.0]
    assert result["questions"][0]["feedback"]["choices"][0]["feedback"] == "Three axes."
    assert result["questions"][1]["feedback"] == {"answer": "2x + 5 at 3."}
    assert result["questions"][3]["feedback"]["cases"][0]["passed"] is True
    # 1 + 1 + 1 + 3 points so far; the viva (4) waits for an examiner, so no total yet.
    assert sum(float(q["points_awarded"] or 0) for q in result["questions"]) == 6.0
    assert (result["pending"], result["score"], result["questions"][4]["pending"]) == (
        True,
        None,
        True,
    )
    assert result["max_score"] == "10.000"
    assert result["status"] == "submitted"

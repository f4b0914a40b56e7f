"""Requests that queue a job while the broker cannot take it (Redis down or restarting): the
client gets a clear retryable error (503 with Retry-After, the one error shape), never a 500,
and a submit still succeeds (its job goes out later with the sweeper)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from grading.models import Attempt, AttemptStatus, ResponseStatus
from grading.services.attempts import attempt_start
from tests.faults.servers import broker_unreachable
from tests.grading.content import CODE
from tests.grading.factories import add_slots, api_as, member, new_quiz, question
from tests.grading.test_variants import PARAM_NUMERIC

pytestmark = [pytest.mark.integration, pytest.mark.django_db]
SOURCE = "print('hello')\n"


@pytest.fixture
def broker_down() -> Iterator[None]:
    with broker_unreachable():
        yield


def _retryable(reply: Any) -> None:
    assert reply.status_code == 503, reply.content
    assert reply["Retry-After"] == "5"
    error = reply.json()["error"]
    assert error["code"] == "broker_unavailable"
    assert "try again" in error["message"]


def _student_in_attempt() -> tuple[User, dict[str, Any]]:
    """A student, and a run's body for the code question of their open attempt."""
    quiz = new_quiz()
    add_slots(quiz, question(quiz.course, CODE))
    student = member(quiz.course, "student")
    attempt = attempt_start(quiz=quiz, user=student, now=timezone.now())
    return student, {"code": SOURCE, "attempt": attempt.pk, "position": 0}


@pytest.mark.parametrize("wait", [False, True])
def test_a_run_asked_for_while_the_broker_is_down_is_a_retryable_503(
    broker_down: None, wait: bool
) -> None:
    student, body = _student_in_attempt()
    _retryable(api_as(student).post("/api/code-runs/", {**body, "wait": wait}, format="json"))


def test_the_quiz_pages_run_button_gets_the_same_answer(broker_down: None) -> None:
    student, body = _student_in_attempt()
    browser = Client()
    browser.force_login(student)
    _retryable(browser.post("/code-runs/", body, content_type="application/json"))


def test_a_submit_while_the_broker_is_down_still_succeeds(
    broker_down: None, django_capture_on_commit_callbacks: Any
) -> None:
    quiz = new_quiz()
    add_slots(quiz, question(quiz.course, CODE))
    api = api_as(member(quiz.course, "student"))
    attempt = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    saved = api.put(
        f"/api/attempts/{attempt['id']}/responses/0/",
        {"answer": {"source": "def double(x):\n    return x * 2\n"}, "version": 0},
        format="json",
    )
    assert saved.status_code == 200, saved.content

    with django_capture_on_commit_callbacks(execute=True) as sends:
        reply = api.post(f"/api/attempts/{attempt['id']}/submit/")

    assert sends  # the job's send was tried at the commit, and failed
    assert reply.status_code == 200, reply.content
    assert reply.json()["status"] == AttemptStatus.SUBMITTED
    assert reply.json()["responses"][0]["status"] == ResponseStatus.QUEUED


def _generated_quiz() -> Any:
    quiz = new_quiz()
    add_slots(quiz, question(quiz.course, PARAM_NUMERIC))
    return quiz


def test_a_quiz_whose_variant_needs_a_worker_is_not_started_and_says_why(
    broker_down: None,
) -> None:
    quiz = _generated_quiz()
    student = member(quiz.course, "student")

    _retryable(api_as(student).post(f"/api/quizzes/{quiz.pk}/attempts/"))
    assert not Attempt.objects.filter(quiz=quiz).exists()
    browser = Client()
    browser.force_login(student)
    page = browser.post(f"/quizzes/{quiz.pk}/start/", follow=True)
    assert page.status_code == 200
    assert "job queue cannot take work just now" in page.content.decode()
    assert not Attempt.objects.filter(quiz=quiz).exists()

"""End to end on the real broker: a real worker process grades a submitted code answer."""

import time
from typing import Any

import pytest
from rest_framework.test import APIClient

from config.celery_workers import worker_processes
from quizbank.models import Role
from tests.api.helpers import save, start, submit
from tests.grading.content import CODE
from tests.grading.factories import add_slots, member, new_course, new_quiz, question

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

WRONG = "def double(x):\n    return x + 2\n"
RIGHT = "def double(x):\n    return x * 2\n"


def _wait_graded(client: APIClient, attempt: int, timeout_s: float = 90.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    seen: list[str] = []
    while time.monotonic() < deadline:
        result: dict[str, Any] = client.get(f"/api/attempts/{attempt}/result/").json()
        status = result["questions"][0]["status"]
        if not seen or seen[-1] != status:
            seen.append(status)
        if status in ("graded", "error"):
            result["seen"] = seen
            return result
        time.sleep(0.05)
    raise AssertionError(f"not graded in {timeout_s} s; statuses seen: {seen}")


def test_a_real_worker_grades_code_answers_end_to_end(redis_url: str) -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, question(course, CODE, points="2"))
    client = APIClient()
    client.force_authenticate(member(course, Role.STUDENT))

    with worker_processes(redis_url, count=1):
        scores = []
        for source in (RIGHT, WRONG):
            attempt = start(client, quiz.pk)
            save(client, attempt["id"], 0, {"source": source})
            # Handed to the worker, not graded in the request; a warm worker may have marked
            # it running (or even graded it) before the submit's answer reads it back.
            handed = submit(client, attempt["id"]).json()["responses"][0]["status"]
            assert handed in ("queued", "running", "graded"), handed
            scores.append(_wait_graded(client, attempt["id"]))

    right, wrong = scores
    assert right["questions"][0]["score"] == 1.0
    assert right["score"] == "2.000", right
    assert right["status"] == "graded"
    assert wrong["questions"][0]["score"] < 1.0
    assert wrong["questions"][0]["feedback"]["cases"][0]["passed"] is False


def test_a_worker_on_the_grading_queue_alone_applies_its_results_itself(redis_url: str) -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, question(course, CODE, points="2"))
    client = APIClient()
    client.force_authenticate(member(course, Role.STUDENT))

    # No worker takes `default`, where a result would wait if it went back through the broker.
    with worker_processes(redis_url, count=1, queues="cpu"):
        attempt = start(client, quiz.pk)
        save(client, attempt["id"], 0, {"source": RIGHT})
        submit(client, attempt["id"])
        result = _wait_graded(client, attempt["id"], timeout_s=60.0)

    assert (result["status"], result["score"]) == ("graded", "2.000")

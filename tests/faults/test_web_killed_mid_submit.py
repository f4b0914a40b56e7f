"""The web process killed mid-submit: the submit happened once or not at all, and a retry
with the same Idempotency-Key gives the same answer.

gunicorn serves the real API; each student's submit is cut off by SIGKILL to every web
worker after a different delay (before, during and after the transaction).
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
from rest_framework.authtoken.models import Token

from grading.models import Attempt, AttemptStatus, Response
from quizbank.models import Role
from tests.faults.servers import gunicorn, kill_web_workers
from tests.grading.content import SHORT_TEXT
from tests.grading.factories import add_slots, member, new_course, new_quiz, question

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
DELAYS_MS = [0, 3, 6, 10, 15, 20, 30, 45, 60, 100]


def _call(url: str, token: str, method: str, body: Any = None, key: str = "") -> tuple[int, Any]:
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    if key:
        headers["Idempotency-Key"] = key
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers, method=method)  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:  # noqa: S310 (loopback)
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _retrying(url: str, token: str, method: str, key: str) -> tuple[int, Any]:
    """A client that retries a dropped connection (as a browser's fetch would, with the key)."""
    for _ in range(50):
        try:
            return _call(url, token, method, key=key)
        except (ConnectionError, urllib.error.URLError):
            time.sleep(0.1)
    raise AssertionError("the web tier never came back")


def _students(count: int) -> tuple[int, list[str]]:
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, question(course, SHORT_TEXT))
    tokens = [Token.objects.create(user=member(course, Role.STUDENT)).key for _ in range(count)]
    return quiz.pk, tokens


def _same_answer(reply: Any) -> Any:
    """A submit's reply, less the server's clock (which moves between calls)."""
    return {key: value for key, value in reply.items() if key != "server_time"}


def _cut_off(base: str, master: Any, token: str, attempt: int, delay_ms: int) -> Any:
    """Send the submit, SIGKILL the web workers `delay_ms` later; the reply if any came."""
    got: list[Any] = []

    def send() -> None:
        try:
            got.append(_call(f"{base}/api/attempts/{attempt}/submit/", token, "POST", key="k1"))
        except (ConnectionError, urllib.error.URLError):
            got.append(None)

    sender = threading.Thread(target=send)
    sender.start()
    time.sleep(delay_ms / 1000)
    kill_web_workers(master)
    sender.join(timeout=60)
    return got[0] if got else None


def test_a_submit_cut_off_by_a_killed_web_worker_happens_once_and_retries_the_same() -> None:
    quiz_id, tokens = _students(len(DELAYS_MS))

    with gunicorn(workers=2) as (base, master):
        for token, delay_ms in zip(tokens, DELAYS_MS, strict=True):
            status, attempt = _retrying(
                f"{base}/api/quizzes/{quiz_id}/attempts/", token, "POST", ""
            )
            assert status == 201, attempt
            url = f"{base}/api/attempts/{attempt['id']}/responses/0/"
            assert _call(url, token, "PUT", {"answer": {"text": "grad_fn"}, "version": 0})[0] == 200
            first = _cut_off(base, master, token, attempt["id"], delay_ms)

            submit_url = f"{base}/api/attempts/{attempt['id']}/submit/"
            status, again = _retrying(submit_url, token, "POST", key="k1")
            assert status == 200, again
            status, third = _retrying(submit_url, token, "POST", key="k1")
            assert _same_answer(third) == _same_answer(again)
            if first is not None and first[0] == 200:
                assert _same_answer(first[1]) == _same_answer(again), f"cut at {delay_ms} ms"

    for attempt in Attempt.objects.filter(quiz_id=quiz_id):
        assert attempt.status != AttemptStatus.OPEN
        assert attempt.idempotency_key == "k1"
        assert Response.objects.filter(attempt=attempt).count() == 1
        assert Response.objects.get(attempt=attempt).answer == {"text": "grad_fn"}

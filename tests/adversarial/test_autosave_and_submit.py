"""A hostile student's autosaves and submits: late, stale, at positions that do not exist,
from outside the exam room with a forged forwarding header, and after submitting."""

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from grading.models import Attempt, AttemptStatus
from quizbank.models import Role
from tests.grading.content import SINGLE
from tests.grading.factories import add_slots, api_as, member, new_quiz, question

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup() -> tuple[APIClient, dict[str, Any]]:
    quiz = new_quiz(time_limit=timedelta(minutes=10), grace_period=timedelta(seconds=30))
    add_slots(quiz, question(quiz.course, SINGLE))
    client = api_as(member(quiz.course, Role.STUDENT))
    attempt = client.post(f"/api/quizzes/{quiz.pk}/attempts/", {}, format="json").json()
    return client, attempt


def _save(client: APIClient, attempt: dict[str, Any], position: int, version: int) -> Any:
    url = f"/api/attempts/{attempt['id']}/responses/{position}/"
    return client.put(url, {"answer": {"choice": 1}, "version": version}, format="json")


def _error(reply: Any) -> tuple[int, str]:
    return reply.status_code, reply.json()["error"]["code"]


def test_a_stale_tab_a_missing_position_and_a_bad_choice_are_refused(
    setup: tuple[APIClient, dict[str, Any]],
) -> None:
    client, attempt = setup
    assert _save(client, attempt, 0, 0).status_code == 200
    url = f"/api/attempts/{attempt['id']}/responses/0/"
    other = client.put(url, {"answer": {"choice": 0}, "version": 0}, format="json")
    assert _error(other) == (409, "stale_version")
    missing = _save(client, attempt, 1, 0)
    assert _error(missing) == (404, "no_such_position")
    assert missing.json()["error"]["fields"] == {"position": ["No such question in this attempt."]}
    for bad in ({"choice": 3}, {"choice": -1}, {"choice": True}, {"choice": 0, "x": 1}):
        reply = client.put(url, {"answer": bad, "version": 1}, format="json")
        assert _error(reply) == (400, "invalid_answer"), bad


def test_a_save_sent_again_after_its_reply_was_lost_is_no_conflict(
    setup: tuple[APIClient, dict[str, Any]],
) -> None:
    """The page resends a save whose reply the network dropped: it landed, so the resend
    answers 200 at the saved version instead of a false "changed elsewhere"."""
    client, attempt = setup
    first = _save(client, attempt, 0, 0)
    again = _save(client, attempt, 0, 0)
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json()["version"] == first.json()["version"] == 1
    url = f"/api/attempts/{attempt['id']}/responses/0/"
    changed = client.put(url, {"answer": {"choice": 0}, "version": 1}, format="json")
    assert changed.json()["version"] == 2
    # The old save arriving late is a conflict now: it would put back what was replaced.
    assert _error(_save(client, attempt, 0, 0)) == (409, "stale_version")
    stored = client.get(f"/api/attempts/{attempt['id']}/").json()["responses"][0]
    assert (stored["answer"], stored["version"]) == ({"choice": 0}, 2)


def test_answers_after_the_grace_period_are_refused_and_the_attempt_is_closed(
    setup: tuple[APIClient, dict[str, Any]],
) -> None:
    client, attempt = setup
    with time_machine.travel(timezone.now() + timedelta(minutes=10, seconds=20)):
        assert _save(client, attempt, 0, 0).status_code == 200  # within the grace period
    with time_machine.travel(timezone.now() + timedelta(minutes=10, seconds=31)):
        assert _error(_save(client, attempt, 0, 1)) == (409, "deadline_passed")
        submitted = client.post(f"/api/attempts/{attempt['id']}/submit/").json()
    assert (submitted["status"], submitted["auto_submitted"]) == ("graded", True)
    assert _error(_save(client, attempt, 0, 1)) == (409, "attempt_closed")


def test_a_submit_repeated_with_another_key_changes_nothing(
    setup: tuple[APIClient, dict[str, Any]],
) -> None:
    client, attempt = setup
    url = f"/api/attempts/{attempt['id']}/submit/"
    first = client.post(url, HTTP_IDEMPOTENCY_KEY="one")
    again = client.post(url, HTTP_IDEMPOTENCY_KEY="two")
    assert (first.status_code, again.status_code) == (200, 200)
    assert first.json()["submitted_at"] == again.json()["submitted_at"]
    stored = Attempt.objects.get(pk=attempt["id"])
    assert (stored.status, stored.idempotency_key) == (AttemptStatus.GRADED, "one")


def test_a_forged_forwarded_for_header_does_not_put_a_student_in_the_exam_room() -> None:
    quiz = new_quiz(allowed_networks=["10.2.0.0/16"])
    add_slots(quiz, question(quiz.course, SINGLE))
    client = api_as(member(quiz.course, Role.STUDENT))
    url = f"/api/quizzes/{quiz.pk}/attempts/"
    reply = client.post(url, {}, format="json", HTTP_X_FORWARDED_FOR="10.2.0.5")
    assert _error(reply) == (403, "network_not_allowed")
    assert not Attempt.objects.exists()

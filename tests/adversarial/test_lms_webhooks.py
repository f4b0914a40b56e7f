"""Webhook payloads carry scores, so they reach only a client that could read the same
grades over the API: an examiner of the course holding a live `grades:read` token. A
client made author (or student) of a course by a careless teacher, or one whose grades
token was revoked, gets no deliveries."""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from lms.models import WebhookDelivery
from lms.services.tokens import token_revoke
from lms.services.webhooks import delivery_attempt
from quizbank.models import Quiz
from tests.grading.content import TRUE_FALSE
from tests.grading.factories import add_slots, member, new_quiz, question, submitted_attempt
from tests.lms.conftest import MakeClient

URL = "http://127.0.0.1:9/vivabank"


@pytest.fixture(autouse=True)
def _receivers_on_this_machine_allowed(settings: Any) -> None:
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]


def _quiz_with_subscriber(make_client: MakeClient, role: str) -> Quiz:
    client, api = make_client(scopes=["grades:read"])
    quiz = new_quiz()
    add_slots(quiz, question(quiz.course, TRUE_FALSE))
    member(quiz.course, role, client.user)
    made = api.post("/api/webhooks/", {"url": URL, "events": ["attempt.submitted"]}, format="json")
    assert made.status_code == 201, made.content
    return quiz


def _submit(quiz: Quiz) -> None:
    submitted_attempt(quiz, member(quiz.course, "student"), {0: {"value": True}})


@pytest.mark.parametrize("role", ["author", "student"])
def test_a_client_that_is_no_examiner_of_the_course_gets_no_events(
    make_client: MakeClient, role: str
) -> None:
    quiz = _quiz_with_subscriber(make_client, role)
    _submit(quiz)
    assert not WebhookDelivery.objects.exists()


def test_a_client_whose_grades_token_was_revoked_gets_no_events(make_client: MakeClient) -> None:
    quiz = _quiz_with_subscriber(make_client, "examiner")
    client, _ = make_client(scopes=["roster:manage"])  # a live token, without grades:read
    for token in client.tokens.filter(scopes__icontains="grades"):
        token_revoke(token=token)
    _submit(quiz)
    assert not WebhookDelivery.objects.exists()


def test_an_examiner_client_with_a_live_grades_token_gets_them(make_client: MakeClient) -> None:
    quiz = _quiz_with_subscriber(make_client, "examiner")
    _submit(quiz)
    assert [d.event for d in WebhookDelivery.objects.all()] == ["attempt.submitted"]


def test_a_stopped_subscription_sends_no_pending_retry(make_client: MakeClient) -> None:
    quiz = _quiz_with_subscriber(make_client, "examiner")
    _submit(quiz)
    delivery = WebhookDelivery.objects.get()
    _, api = make_client(scopes=["grades:read"])
    assert api.delete(f"/api/webhooks/{delivery.subscription_id}/").status_code == 204

    assert delivery_attempt(delivery_pk=delivery.pk, now=timezone.now()) == "failed"
    delivery.refresh_from_db()
    assert (delivery.tries, delivery.last_status_code) == (0, None)


def test_a_pending_retry_stops_when_the_grades_token_is_revoked(make_client: MakeClient) -> None:
    quiz = _quiz_with_subscriber(make_client, "examiner")
    _submit(quiz)
    delivery = WebhookDelivery.objects.get()
    client, _ = make_client()
    for token in client.tokens.all():
        token_revoke(token=token)

    assert delivery_attempt(delivery_pk=delivery.pk, now=timezone.now()) == "failed"


def test_a_client_whose_grades_token_expired_gets_no_events_and_no_retry(
    make_client: MakeClient,
) -> None:
    quiz = _quiz_with_subscriber(make_client, "examiner")
    _submit(quiz)
    pending = WebhookDelivery.objects.get()
    client, _ = make_client()
    client.tokens.update(expires_at=timezone.now() - timedelta(seconds=1))

    _submit(quiz)  # a second student's submit
    assert list(WebhookDelivery.objects.all()) == [pending]
    assert delivery_attempt(delivery_pk=pending.pk, now=timezone.now()) == "failed"

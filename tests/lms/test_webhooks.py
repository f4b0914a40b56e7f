"""Webhooks delivered to a real HTTP receiver on 127.0.0.1: the signature verifies, a
receiver that fails twice gets the delivery on the third try, and no effect happens
twice."""

import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from lms.errors import DeliveryFailed
from lms.models import ApiToken, DeliveryStatus, WebhookDelivery
from lms.services.webhooks import (
    STOPPED,
    deliveries_unsent,
    delivery_attempt,
    delivery_give_up,
)
from lms.tasks import deliver_webhook
from quizbank.models import CourseMembership, Quiz, ReleasePolicy
from tests.faults.servers import broker_unreachable
from tests.grading.content import TRUE_FALSE, VIVA
from tests.grading.factories import add_slots, api_as, member, new_quiz, question, submitted_attempt
from tests.lms.conftest import RESEND_AFTER, CaptureCommits, MakeClient
from tests.lms.receivers import serving


def verify(secret: str, headers: Any, body: bytes, tolerance_s: int = 300) -> bool:
    """The receiver's check, as docs/lms.md shows it."""
    timestamp = headers["Vivabank-Timestamp"]
    if abs(time.time() - int(timestamp)) > tolerance_s:
        return False
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return hmac.compare_digest(headers["Vivabank-Signature"], f"v1={expected.hexdigest()}")


@pytest.fixture(autouse=True)
def _receivers_on_this_machine_allowed(settings: Any) -> None:
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]


@dataclass
class Receiver:
    secret: str = ""
    fail_first: int = 0
    posts: int = 0
    bad_signatures: int = 0
    effects: dict[str, dict[str, Any]] = field(default_factory=dict)  # by delivery id


@pytest.fixture
def receiver() -> Iterator[tuple[Receiver, str]]:
    state = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.posts += 1
            if not verify(state.secret, self.headers, body):
                state.bad_signatures += 1
                self.send_response(400)
            elif state.fail_first > 0:
                state.fail_first -= 1
                self.send_response(500)
            else:
                state.effects.setdefault(self.headers["Vivabank-Delivery"], json.loads(body))
                self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    with serving(Handler) as port:
        yield state, f"http://127.0.0.1:{port}/vivabank"


def _subscribed(make_client: MakeClient, receiver: tuple[Receiver, str]) -> tuple[Quiz, APIClient]:
    state, url = receiver
    client, api = make_client(scopes=["grades:read"])
    quiz = new_quiz(release_policy=ReleasePolicy.MANUAL, shuffle_choices=False)
    add_slots(quiz, question(quiz.course, TRUE_FALSE), question(quiz.course, VIVA))
    member(quiz.course, "examiner", client.user)
    events = ["attempt.submitted", "attempt.graded", "grades.released", "mark.changed"]
    made = api.post("/api/webhooks/", {"url": url, "events": events}, format="json")
    assert made.status_code == 201, made.content
    state.secret = made.json()["secret"]
    assert "secret" not in api.get("/api/webhooks/").json()["results"][0]
    return quiz, api


def _run_the_quiz(quiz: Quiz) -> None:
    student, examiner = member(quiz.course, "student"), member(quiz.course, "examiner")
    attempt = submitted_attempt(quiz, student, {0: {"value": True}, 1: {"text": "It sums."}})
    viva = attempt.responses.get(position=1)
    api = api_as(examiner)
    reply = api.post(f"/api/marking/responses/{viva.pk}/marks/", {"levels": [2]}, format="json")
    assert reply.status_code == 201, reply.content
    assert api.post(f"/api/quizzes/{quiz.pk}/release/", {}, format="json").status_code == 200


def test_every_event_arrives_signed_once(
    make_client: MakeClient, receiver: tuple[Receiver, str]
) -> None:
    quiz, api = _subscribed(make_client, receiver)
    _run_the_quiz(quiz)
    deliveries = list(WebhookDelivery.objects.order_by("pk"))
    assert [d.event for d in deliveries] == [
        "attempt.submitted",
        "mark.changed",
        "attempt.graded",
        "grades.released",
    ]
    for delivery in deliveries:
        assert deliver_webhook.apply(args=(delivery.pk,)).get() == "delivered"
    state, _ = receiver
    assert state.bad_signatures == 0
    assert [e["event"] for e in state.effects.values()] == [d.event for d in deliveries]
    graded = next(e for e in state.effects.values() if e["event"] == "attempt.graded")
    assert graded["data"]["score"] == "2.000"
    listed = api.get(f"/api/webhooks/{deliveries[0].subscription_id}/deliveries/").json()
    assert {row["status"] for row in listed["results"]} == {"delivered"}


def test_a_receiver_that_fails_twice_gets_it_on_the_third_try(
    make_client: MakeClient, receiver: tuple[Receiver, str]
) -> None:
    quiz, _ = _subscribed(make_client, receiver)
    state, _ = receiver
    submitted_attempt(quiz, member(quiz.course, "student"), {0: {"value": True}})
    delivery = WebhookDelivery.objects.get(event="attempt.submitted")
    state.fail_first = 2
    # What the task does on each of its tries (its retries wait 2, 4, 8 ... s on a worker).
    for _ in range(2):
        with pytest.raises(DeliveryFailed, match="HTTP 500"):
            delivery_attempt(delivery_pk=delivery.pk, now=timezone.now())
    assert delivery_attempt(delivery_pk=delivery.pk, now=timezone.now()) == "delivered"
    delivery.refresh_from_db()
    assert (delivery.status, delivery.tries, delivery.last_status_code) == ("delivered", 3, 204)
    assert state.posts == 3
    assert list(state.effects) == [str(delivery.delivery_id)]
    assert deliver_webhook.apply(args=(delivery.pk,)).get() == "delivered"  # a duplicate task
    assert state.posts == 3


def test_a_delivery_given_up_is_listed_as_failed(
    make_client: MakeClient, receiver: tuple[Receiver, str]
) -> None:
    quiz, api = _subscribed(make_client, receiver)
    state, _ = receiver
    submitted_attempt(quiz, member(quiz.course, "student"), {0: {"value": True}})
    delivery = WebhookDelivery.objects.get(event="attempt.submitted")
    state.fail_first = 100
    with pytest.raises(DeliveryFailed):
        delivery_attempt(delivery_pk=delivery.pk, now=timezone.now())
    delivery_give_up(delivery_pk=delivery.pk)
    url = f"/api/webhooks/{delivery.subscription_id}/deliveries/?status=failed"
    [row] = api.get(url).json()["results"]
    assert (row["tries"], row["last_status_code"], row["last_error"]) == (1, 500, "HTTP 500")
    assert state.effects == {}


def test_a_client_outside_the_course_gets_no_events(
    make_client: MakeClient, receiver: tuple[Receiver, str]
) -> None:
    _, url = receiver
    _, api = make_client("elsewhere", scopes=["grades:read"])
    api.post("/api/webhooks/", {"url": url, "events": ["attempt.submitted"]}, format="json")
    quiz = new_quiz()
    add_slots(quiz, question(quiz.course, TRUE_FALSE))
    submitted_attempt(quiz, member(quiz.course, "student"), {0: {"value": True}})
    assert not WebhookDelivery.objects.exists()


def test_webhooks_need_the_grades_scope(make_client: MakeClient) -> None:
    _, api = make_client(scopes=["roster:manage"])
    reply = api.post(
        "/api/webhooks/", {"url": "http://127.0.0.1:9/x", "events": ["mark.changed"]}, format="json"
    )
    assert reply.status_code == 403


def test_a_submit_graded_at_once_says_submitted_then_graded(
    make_client: MakeClient, receiver: tuple[Receiver, str]
) -> None:
    """A quiz with no answer left waiting is graded by its submit: each event still says
    what happened at its own moment."""
    _, url = receiver
    client, api = make_client(scopes=["grades:read"])
    quiz = new_quiz(release_policy=ReleasePolicy.MANUAL)
    add_slots(quiz, question(quiz.course, TRUE_FALSE))
    member(quiz.course, "examiner", client.user)
    events = ["attempt.submitted", "attempt.graded"]
    assert (
        api.post("/api/webhooks/", {"url": url, "events": events}, format="json").status_code == 201
    )

    attempt = submitted_attempt(quiz, member(quiz.course, "student"), {0: {"value": True}})

    deliveries = list(WebhookDelivery.objects.order_by("pk"))
    assert [(d.event, d.payload["data"]["status"]) for d in deliveries] == [
        ("attempt.submitted", "submitted"),
        ("attempt.graded", "graded"),
    ]
    assert deliveries[1].payload["data"]["attempt"] == attempt.pk


def test_a_client_that_lost_its_grades_token_gets_nothing_more(
    make_client: MakeClient, receiver: tuple[Receiver, str]
) -> None:
    """Revoked after an event was queued: that delivery is given up unsent, and later events
    are not queued for the subscription at all."""
    quiz, _ = _subscribed(make_client, receiver)
    state, _ = receiver
    student = member(quiz.course, "student")
    submitted_attempt(quiz, student, {0: {"value": True}, 1: {"text": "It sums."}})
    queued = WebhookDelivery.objects.get(event="attempt.submitted")
    ApiToken.objects.filter(client=queued.subscription.client).update(revoked_at=timezone.now())

    assert delivery_attempt(delivery_pk=queued.pk, now=timezone.now()) == "failed"
    queued.refresh_from_db()
    assert (queued.status, queued.last_error) == ("failed", STOPPED)
    submitted_attempt(quiz, member(quiz.course, "student"), {0: {"value": False}})
    assert WebhookDelivery.objects.count() == 1  # the first submit's, given up
    assert state.posts == 0


def test_with_no_subscription_a_submit_reads_no_tokens(db: None) -> None:
    """Every attempt saved as submitted or graded asks who subscribes; with nobody
    subscribed, the answer is one query, not a read of every live API token."""
    quiz = new_quiz()
    add_slots(quiz, question(quiz.course, TRUE_FALSE))
    student = member(quiz.course, "student")
    with CaptureQueriesContext(connection) as queries:
        submitted_attempt(quiz, student, {0: {"value": True}})
    statements = [query["sql"] for query in queries.captured_queries]
    assert any(ApiToken._meta.db_table not in sql and "webhook" in sql for sql in statements)
    assert not [sql for sql in statements if ApiToken._meta.db_table in sql]


def test_a_webhook_event_queued_while_the_broker_was_down_is_sent_later(
    make_client: MakeClient,
    receiver: tuple[Receiver, str],
    django_capture_on_commit_callbacks: CaptureCommits,
) -> None:
    quiz, _ = _subscribed(make_client, receiver)
    api = api_as(member(quiz.course, "student"))
    attempt = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    viva = {"answer": {"text": "It sums."}, "version": 0}  # waits for an examiner: no grade yet
    api.put(f"/api/attempts/{attempt['id']}/responses/1/", viva, format="json")
    with broker_unreachable(), django_capture_on_commit_callbacks(execute=True) as sends:
        reply = api.post(f"/api/attempts/{attempt['id']}/submit/")
    assert sends  # the send was tried at the commit, and failed
    assert reply.status_code == 200, reply.content
    delivery = WebhookDelivery.objects.get(event="attempt.submitted")
    assert (delivery.status, delivery.tries) == (DeliveryStatus.PENDING, 0)

    now = timezone.now()
    assert deliveries_unsent(now=now) == []  # may still be on its way
    assert deliveries_unsent(now=now + RESEND_AFTER) == [delivery.pk]
    assert delivery_attempt(delivery_pk=delivery.pk, now=timezone.now()) == "delivered"
    state, _ = receiver
    assert list(state.effects) == [str(delivery.delivery_id)]
    assert deliveries_unsent(now=now + RESEND_AFTER) == []  # tried: never queued again


def test_a_client_no_longer_the_courses_examiner_gets_nothing_queued_before(
    make_client: MakeClient, receiver: tuple[Receiver, str]
) -> None:
    """A retry or the resend sweep may run long after the event: the client's part in the
    course is checked again when it is sent."""
    quiz, _ = _subscribed(make_client, receiver)
    submitted_attempt(quiz, member(quiz.course, "student"), {0: {"value": True}})
    delivery = WebhookDelivery.objects.get(event="attempt.submitted")
    CourseMembership.objects.filter(
        user=delivery.subscription.client.user, course=quiz.course
    ).delete()
    assert delivery_attempt(delivery_pk=delivery.pk, now=timezone.now()) == "failed"
    state, _ = receiver
    assert state.posts == 0

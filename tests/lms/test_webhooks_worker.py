"""On the real broker: a real worker delivers a webhook, retrying a receiver that fails
twice until the third try succeeds, under one delivery id."""

import time
from typing import Any

import pytest

from config.celery_workers import worker_processes
from lms.models import WebhookDelivery
from tests.grading.factories import member, submitted_attempt
from tests.lms.conftest import MakeClient
from tests.lms.test_webhooks import Receiver, _subscribed, receiver  # noqa: F401  (fixture)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_a_real_worker_retries_until_the_receiver_takes_it(
    redis_url: str,
    make_client: MakeClient,
    receiver: tuple[Receiver, str],  # noqa: F811
    settings: Any,
) -> None:
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]
    state, _ = receiver
    quiz, _ = _subscribed(make_client, receiver)
    state.fail_first = 2
    allowed = {"WEBHOOK_ALLOWED_PRIVATE_HOSTS": "127.0.0.1"}
    with worker_processes(redis_url, count=1, queues="default", env=allowed):
        student = member(quiz.course, "student")
        submitted_attempt(quiz, student, {0: {"value": True}, 1: {"text": "It sums."}})
        deadline = time.monotonic() + 60
        delivered = WebhookDelivery.objects.filter(status="delivered")
        while time.monotonic() < deadline and not (state.effects and delivered.exists()):
            time.sleep(0.1)
    delivery = WebhookDelivery.objects.get(event="attempt.submitted")
    assert list(state.effects) == [str(delivery.delivery_id)]
    assert delivery.status == "delivered"
    # Two failures, then success; on a loaded machine a try may also time out after the
    # receiver took it, and be sent again: the receiver keeps one effect per delivery id.
    assert delivery.tries >= 3
    assert delivery.tries == state.posts, delivery.last_error

"""Webhooks: events of a client's courses POSTed to its endpoints, signed and retried.

Each delivery is `POST <url>` with a JSON body `{"id", "event", "created_at", "data"}`
and the headers `Vivabank-Delivery` (the id, the same on every retry: receivers drop
ids they have seen), `Vivabank-Event`, `Vivabank-Timestamp` (Unix seconds) and
`Vivabank-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<body>" under the secret>`.
A 2xx answer delivers it; anything else is retried with back-off by the task.
"""

import hashlib
import hmac
import json
import secrets
import uuid
from datetime import datetime, timedelta
from typing import Any

import urllib3
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet

from config.scopes import Scope
from lms.errors import DeliveryFailed, WebhookUrlRefused
from lms.models import ApiClient, DeliveryStatus, WebhookDelivery, WebhookSubscription
from lms.services.tokens import clients_holding
from lms.services.webhook_targets import target_post, webhook_target
from quizbank.access import course_roles
from quizbank.models import Quiz, Role

TIMEOUT_S = 10
STOPPED = "Not sent: the subscription was stopped or its client may no longer read grades."


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The `Vivabank-Signature` header value for a body sent at `timestamp`."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return f"v1={mac.hexdigest()}"


def subscription_create(*, client: ApiClient, url: str, events: list[str]) -> WebhookSubscription:
    """A subscription with a fresh secret (shown to the client once); WebhookUrlRefused
    for a URL that webhooks may not reach."""
    webhook_target(url)
    return WebhookSubscription.objects.create(
        client=client, url=url, events=sorted(set(events)), secret=secrets.token_hex(32)
    )


def _receiving(subscriptions: QuerySet[WebhookSubscription]) -> list[WebhookSubscription]:
    """Those of `subscriptions` that may still receive events: not stopped, and their client's
    account active with a live `grades:read` token (the scope that lists them)."""
    # The usual case, no subscription at all, is asked on every submit and every grade: one
    # plain read of ids answers it (the join and its columns cost three times as much).
    if not subscriptions.filter(active=True).values_list("pk", flat=True):
        return []
    found = list(subscriptions.filter(active=True, client__user__is_active=True))
    if not found:
        return []
    holding = clients_holding(Scope.READ_GRADES)
    return [sub for sub in found if sub.client_id in holding]


def _examines(sub: WebhookSubscription, course_id: int) -> bool:
    """Whether the subscription's client may read the course's grades: an examiner of it."""
    return Role.EXAMINER in course_roles(sub.client.user, course_id)


def event_record(
    *, event: str, course_id: int, key: str, data: dict[str, Any], now: datetime
) -> list[int]:
    """Queue one event of the course; the new deliveries' ids (see `events_record`)."""
    return events_record(event=event, course_id=course_id, keyed=[(key, data)], now=now)


def events_record(
    *, event: str, course_id: int, keyed: list[tuple[str, dict[str, Any]]], now: datetime
) -> list[int]:
    """Queue each (key, data) event for every active subscription to it whose client may
    read the course's grades over the API (examiner, a live `grades:read` token, an
    active account); the new deliveries' ids (an event already queued for a subscription
    under its key is not queued again)."""
    made = []
    for sub in _receiving(WebhookSubscription.objects.select_related("client__user")):
        if event not in sub.events or not _examines(sub, course_id):
            continue
        made += [pk for key, data in keyed if (pk := _delivery_create(sub, event, key, data, now))]
    return made


def _delivery_create(
    sub: WebhookSubscription, event: str, key: str, data: dict[str, Any], now: datetime
) -> int | None:
    delivery_id = uuid.uuid4()
    payload = {"id": str(delivery_id), "event": event, "created_at": now.isoformat(), "data": data}
    try:
        with transaction.atomic():
            row = WebhookDelivery.objects.create(
                subscription=sub,
                delivery_id=delivery_id,
                event=event,
                dedupe_key=f"{event}:{key}"[:200],
                payload=payload,
                created_at=now,
            )
    except IntegrityError:
        return None
    return row.pk


def deliveries_unsent(*, now: datetime, limit: int = 500) -> list[int]:
    """Deliveries queued LMS_RESEND_AFTER_S ago or more (and within LMS_RESEND_WITHIN_S) and
    never tried: their send was lost (the broker was down at the commit). Those tried once
    are in their task's retries."""
    before = now - timedelta(seconds=settings.LMS_RESEND_AFTER_S)
    since = now - timedelta(seconds=settings.LMS_RESEND_WITHIN_S)  # an event goes stale
    unsent = WebhookDelivery.objects.filter(
        status=DeliveryStatus.PENDING, tries=0, created_at__lt=before, created_at__gte=since
    )
    return list(unsent.order_by("created_at", "pk").values_list("pk", flat=True)[:limit])


def _post(sub: WebhookSubscription, delivery: WebhookDelivery, now: datetime) -> int:
    body = json.dumps(delivery.payload, separators=(",", ":")).encode()
    timestamp = str(int(now.timestamp()))
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Vivabank-Webhooks/1",
        "Vivabank-Delivery": str(delivery.delivery_id),
        "Vivabank-Event": delivery.event,
        "Vivabank-Timestamp": timestamp,
        "Vivabank-Signature": signature(sub.secret, timestamp, body),
    }
    return target_post(webhook_target(sub.url), body=body, headers=headers, timeout_s=TIMEOUT_S)


def _course_of(delivery: WebhookDelivery) -> int | None:
    """The course the delivery's event is about (every event names its quiz)."""
    data = delivery.payload.get("data") if isinstance(delivery.payload, dict) else None
    quiz_id = data.get("quiz") if isinstance(data, dict) else None
    if not isinstance(quiz_id, int):
        return None
    course: int | None = Quiz.objects.filter(pk=quiz_id).values_list("course_id", flat=True).first()
    return course


def delivery_attempt(*, delivery_pk: int, now: datetime) -> str:
    """Send the delivery unless it was delivered already, or give it up unsent when its
    subscription may no longer receive events; its status after.
    DeliveryFailed (the row keeps the status code or error) when the receiver fails."""
    delivery = WebhookDelivery.objects.select_related("subscription").get(pk=delivery_pk)
    if delivery.status == DeliveryStatus.DELIVERED:
        return str(delivery.status)
    rows = WebhookDelivery.objects.filter(pk=delivery_pk)
    receiving = _receiving(
        WebhookSubscription.objects.filter(pk=delivery.subscription_id).select_related(
            "client__user"
        )
    )
    course_id = _course_of(delivery)
    if not receiving or course_id is None or not _examines(receiving[0], course_id):
        # Stopped, or its client lost its grades token or its part in the course, after the
        # event was queued.
        rows.update(status=DeliveryStatus.FAILED, last_error=STOPPED)
        return str(DeliveryStatus.FAILED)
    try:
        code = _post(delivery.subscription, delivery, now)
    except (WebhookUrlRefused, urllib3.exceptions.HTTPError) as exc:
        rows.update(tries=F("tries") + 1, last_status_code=None, last_error=str(exc)[:2000])
        raise DeliveryFailed(f"delivery {delivery.delivery_id}: {exc}") from exc
    if not 200 <= code < 300:
        rows.update(tries=F("tries") + 1, last_status_code=code, last_error=f"HTTP {code}")
        raise DeliveryFailed(f"delivery {delivery.delivery_id}: HTTP {code}")
    rows.update(
        tries=F("tries") + 1,
        last_status_code=code,
        last_error="",
        status=DeliveryStatus.DELIVERED,
        delivered_at=now,
    )
    return str(DeliveryStatus.DELIVERED)


def delivery_give_up(*, delivery_pk: int) -> None:
    """After the last retry: the delivery stays listed as failed."""
    WebhookDelivery.objects.filter(pk=delivery_pk).exclude(status=DeliveryStatus.DELIVERED).update(
        status=DeliveryStatus.FAILED
    )

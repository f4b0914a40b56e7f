"""Celery entry points of the LMS integration: take ids, call one service."""

from typing import Any

from celery import Task, shared_task
from django.conf import settings
from django.utils import timezone

from lms.errors import DeliveryFailed, ScoreNotSent
from lms.services.ags import score_publish, score_syncs_unsent
from lms.services.webhooks import deliveries_unsent, delivery_attempt, delivery_give_up


# A platform that is down or refuses is tried again with exponential back-off (2, 4, 8 ...
# up to 600 s, jittered), 8 times; the row then stays `failed` for an examiner to re-send.
@shared_task(
    name="lms.publish_score",
    acks_late=True,
    ignore_result=True,
    autoretry_for=(ScoreNotSent,),
    retry_backoff=2,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=8,
)
def publish_score(sync_id: int) -> str:
    """Send one student's current score to one LMS line item."""
    return score_publish(sync_id=sync_id, now=timezone.now())


def publish_later(sync_ids: list[int], *, expires_s: float | None = None) -> None:
    """Queue a send for each row (call it from `transaction.on_commit`); a copy still queued
    `expires_s` after is dropped unrun (a re-send: the next sweep sends it again)."""
    expiry: dict[str, Any] = {} if expires_s is None else {"expires": expires_s}
    for sync_id in sync_ids:
        publish_score.apply_async(args=(sync_id,), **expiry)


# A failing receiver is tried again after 2, 4, 8 ... up to 600 s, 8 times; then the
# delivery is listed as failed.
@shared_task(
    name="lms.deliver_webhook", bind=True, acks_late=True, ignore_result=True, max_retries=8
)
def deliver_webhook(self: Task[[int], str], delivery_pk: int) -> str:
    """Send one webhook delivery (the same delivery id on every try)."""
    try:
        return delivery_attempt(delivery_pk=delivery_pk, now=timezone.now())
    except DeliveryFailed as exc:
        if self.request.retries >= (self.max_retries or 0):
            delivery_give_up(delivery_pk=delivery_pk)
            return "failed"
        raise self.retry(exc=exc, countdown=min(600, 2 ** (self.request.retries + 1))) from exc


def deliver_later(delivery_pks: list[int], *, expires_s: float | None = None) -> None:
    """Queue each delivery (call it from `transaction.on_commit`); as `publish_later`."""
    expiry: dict[str, Any] = {} if expires_s is None else {"expires": expires_s}
    for pk in delivery_pks:
        deliver_webhook.apply_async(args=(pk,), **expiry)


@shared_task(name="lms.resend_unsent", ignore_result=True)
def resend_unsent() -> dict[str, int]:
    """Beat: queue again the webhook deliveries and LMS scores whose send was lost."""
    now = timezone.now()
    deliveries, scores = deliveries_unsent(now=now), score_syncs_unsent(now=now)
    # A copy still queued at the next sweep is dropped, so re-sends never pile up.
    deliver_later(deliveries, expires_s=settings.LMS_RESEND_EVERY_S)
    publish_later(scores, expires_s=settings.LMS_RESEND_EVERY_S)
    return {"deliveries": len(deliveries), "scores": len(scores)}

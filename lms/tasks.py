"""Celery entry points of the LMS integration: take ids, call one service."""

from celery import shared_task
from django.utils import timezone

from lms.errors import ScoreNotSent
from lms.services.ags import score_publish


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


def publish_later(sync_ids: list[int]) -> None:
    """Queue a send for each row (call it from `transaction.on_commit`)."""
    for sync_id in sync_ids:
        publish_score.delay(sync_id)

"""Grade passback (LTI Assignment and Grade Services): each released score goes to the
platform's line item, and again after every re-mark.

A change (a release, a mark) marks the student's sync rows `pending`; publishing one
computes the score as it stands then, so a late or repeated publication sends the
newest score, and a score as of an earlier moment than the one last accepted is never
sent over it. A failure is kept on the row (`failed`, its error) for examiners to see
and re-send.
"""

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F

from config.locking import for_update
from grading.selectors import results_released
from lms import lti
from lms.errors import ScoreNotSent
from lms.models import ExternalIdentity, LtiLineItem, LtiScoreSync, SyncStatus
from lms.services.grades import GradeStatus, student_grade_row
from lms.services.lti_launch import lti_namespace
from quizbank.models import Quiz


def score_syncs_mark(*, quiz_id: int, user_ids: set[int], now: datetime) -> list[int]:
    """Mark these students' scores on the quiz's line items as to be sent; their ids."""
    marked = []
    for item in LtiLineItem.objects.filter(quiz_id=quiz_id):
        for user_id in user_ids:
            sync, _ = LtiScoreSync.objects.update_or_create(
                line_item=item,
                user_id=user_id,
                defaults={"status": SyncStatus.PENDING, "updated_at": now, "tries": 0},
            )
            marked.append(sync.pk)
    return marked


def score_syncs_unsent(*, now: datetime, limit: int = 500) -> list[int]:
    """Scores never tried, marked LMS_RESEND_AFTER_S ago or more, of quizzes whose results
    are released now, oldest first: a send lost while the broker was down, and a score
    marked before its quiz's release that no release action sends (a close passing, a
    student's later close or the grace period ending, the policy changed to "immediately").
    Rows of quizzes not yet released are left alone until they are."""
    waiting = LtiScoreSync.objects.filter(
        status=SyncStatus.PENDING,
        tries=0,
        updated_at__lt=now - timedelta(seconds=settings.LMS_RESEND_AFTER_S),
    )
    quiz_ids = set(waiting.values_list("line_item__quiz_id", flat=True).distinct()[:limit])
    released = [
        quiz for quiz in Quiz.objects.filter(pk__in=quiz_ids) if results_released(quiz, now)
    ]
    due = waiting.filter(line_item__quiz__in=released).order_by("updated_at", "pk")
    return list(due.values_list("pk", flat=True)[:limit])


def _score(sync: LtiScoreSync, subject: str, now: datetime) -> dict[str, Any] | None:
    """The AGS score to send now; None while nothing of it is released. An answer still
    waiting for an examiner after a release is PendingManual, with no score yet."""
    quiz = sync.line_item.quiz
    row = student_grade_row(quiz=quiz, user=sync.user, now=now)
    waiting = row.status == GradeStatus.PENDING_MANUAL and results_released(quiz, now)
    if not (row.released or waiting):
        return None
    score: dict[str, Any] = {
        "userId": subject,
        "activityProgress": "Submitted" if waiting else "Completed",
        "gradingProgress": "PendingManual" if waiting else "FullyGraded",
        "timestamp": (row.updated_at or now).isoformat(),
    }
    if row.released and row.score is not None and row.max_score is not None:
        score.update(scoreGiven=float(row.score), scoreMaximum=float(row.max_score))
    return score


NO_SUBJECT = (
    "The student has never come from this platform (no launch as them), so it has no one to "
    "give the score to."
)


def _subject(sync: LtiScoreSync) -> str | None:
    issuer = sync.line_item.registration.issuer
    found = ExternalIdentity.objects.filter(namespace=lti_namespace(issuer), user=sync.user)
    return found.values_list("external_id", flat=True).first()


def score_publish(*, sync_id: int, now: datetime) -> str:
    """Send the student's current score if it is released and newer than the last one
    sent; the row's status after. ScoreNotSent (recorded on the row) on failure."""
    try:
        return _publish(sync_id, now)
    except ScoreNotSent as exc:
        failed = LtiScoreSync.objects.filter(pk=sync_id)
        failed.update(status=SyncStatus.FAILED, last_error=exc.message, tries=F("tries") + 1)
        raise


@transaction.atomic
def _publish(sync_id: int, now: datetime) -> str:
    # The row stays locked while its score is sent, so two sends of one row never cross.
    sync = (
        for_update(LtiScoreSync)
        .select_related("line_item__registration", "line_item__quiz", "user")
        .get(pk=sync_id)
    )
    subject = _subject(sync)
    if subject is None:  # nothing to send it to: said once, not tried at every sweep
        sync.status, sync.last_error, sync.tries = SyncStatus.FAILED, NO_SUBJECT, sync.tries + 1
        sync.save(update_fields=["status", "last_error", "tries"])
        return str(sync.status)
    score = _score(sync, subject, now)
    as_of = None if score is None else datetime.fromisoformat(score["timestamp"])
    stale = as_of is not None and sync.sent_as_of is not None and as_of < sync.sent_as_of
    if score is None or stale or score == sync.sent_payload:
        sync.status = SyncStatus.SENT if sync.sent_payload else SyncStatus.PENDING
        sync.save(update_fields=["status"])
        return str(sync.status)
    lti.send_score(
        registration_id=sync.line_item.registration_id,
        line_item_url=sync.line_item.url,
        score=score,
    )
    sync.status, sync.last_error, sync.tries = SyncStatus.SENT, "", sync.tries + 1
    sync.sent_payload, sync.sent_as_of, sync.updated_at = score, as_of, now
    sync.save()
    return str(sync.status)


def score_syncs_of(quiz: Quiz) -> list[LtiScoreSync]:
    """The quiz's passback rows, for examiners: status, tries and the last error."""
    rows = LtiScoreSync.objects.filter(line_item__quiz=quiz).select_related("user", "line_item")
    return list(rows.order_by("user__username", "line_item__url"))


def score_syncs_resend(*, quiz: Quiz, now: datetime) -> list[int]:
    """Mark every failed row of the quiz to be sent again; their ids."""
    failed = LtiScoreSync.objects.filter(line_item__quiz=quiz, status=SyncStatus.FAILED)
    ids = list(failed.values_list("pk", flat=True))
    failed.update(status=SyncStatus.PENDING, tries=0, updated_at=now)
    return ids


def quiz_students(quiz: Quiz) -> set[int]:
    return set(User.objects.filter(attempts__quiz=quiz).values_list("pk", flat=True))

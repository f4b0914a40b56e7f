"""Grading -> LMS events through Django signals: grading imports nothing of lms.

Webhooks: an attempt saved as submitted or graded, a release, and a saved mark change
queue `attempt.submitted`, `attempt.graded`, `grades.released` and `mark.changed` for the
subscribed clients of the course; deliveries run as Celery tasks after the commit.

A release of a quiz's results, and a mark or re-mark of an answer (a saved ScoreChange),
mark the students' LMS scores to be sent; the sends run as Celery tasks once the
transaction commits. A bulk regrade writes its ScoreChanges and totals in bulk (no
`post_save`) and sends `grading.events.scores_regraded` instead: each changed score
gets the same events and passback as a single mark change.
"""

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models.signals import post_save
from django.utils import timezone

from grading.events import scores_regraded
from grading.models import Attempt, AttemptStatus
from grading.models.marking import ScoreChange
from grading.models.regrade import RegradeRun
from grading.models.release import QuizRelease, ReleaseAction
from lms.models import ExternalIdentity, WebhookEvent
from lms.services.ags import quiz_students, score_syncs_mark
from lms.services.webhooks import events_record
from lms.tasks import deliver_later, publish_later


def _mark(quiz_id: int, user_ids: set[int]) -> None:
    ids = score_syncs_mark(quiz_id=quiz_id, user_ids=user_ids, now=timezone.now())
    if ids:
        # robust: a broker that is down must not fail the request that was committed; beat's
        # `lms.resend_unsent` sends what it could not queue.
        transaction.on_commit(lambda: publish_later(ids), robust=True)


def _events(event: str, course_id: int, keyed: list[tuple[str, dict[str, Any]]]) -> None:
    ids = events_record(event=event, course_id=course_id, keyed=keyed, now=timezone.now())
    if ids:
        transaction.on_commit(lambda: deliver_later(ids), robust=True)


def _attempt_data(attempt: Attempt) -> dict[str, Any]:
    return {
        "attempt": attempt.pk,
        "quiz": attempt.quiz_id,
        "user": attempt.user_id,
        "status": attempt.status,
    }


def _graded(attempts: list[Attempt]) -> list[tuple[str, dict[str, Any]]]:
    """`attempt.graded` of the graded ones, keyed by when they were graded (a re-total
    that leaves that moment alone queues nothing new)."""
    keyed = []
    for attempt in attempts:
        if attempt.status == AttemptStatus.GRADED and attempt.graded_at:
            score = {"score": str(attempt.score), "max_score": str(attempt.max_score)}
            keyed.append(
                (
                    f"{attempt.pk}:{attempt.graded_at.isoformat()}",
                    {**_attempt_data(attempt), **score},
                )
            )
    return keyed


def _mark_changed(
    change: ScoreChange, attempt: Attempt, created: bool
) -> tuple[str, dict[str, Any]]:
    data = {
        "attempt": attempt.pk,
        "quiz": attempt.quiz_id,
        "user": attempt.user_id,
        "response": change.response_id,
        "position": change.response.position,
    }
    return f"{change.pk}:{int(created)}", data


def _on_attempt(sender: Any, instance: Attempt, update_fields: Any = None, **_: Any) -> None:
    fields = set(update_fields or ())
    if "submitted_at" in fields and instance.submitted_at is not None:
        # The submit's own moment: a save that also grades it reports the grade separately.
        submitted = (
            str(instance.pk),
            {**_attempt_data(instance), "status": AttemptStatus.SUBMITTED},
        )
        _events(WebhookEvent.ATTEMPT_SUBMITTED, instance.quiz.course_id, [submitted])
    if "graded_at" in fields and (graded := _graded([instance])):
        _events(WebhookEvent.ATTEMPT_GRADED, instance.quiz.course_id, graded)
        # The LMS learns the grade when its student may see it: now under "immediately",
        # else the send finds nothing released and the release (or the close) sends it.
        _mark(instance.quiz_id, {instance.user_id})


def _on_release(sender: Any, instance: QuizRelease, created: bool, **_: Any) -> None:
    if created and instance.action == ReleaseAction.RELEASE:
        _mark(instance.quiz_id, quiz_students(instance.quiz))
        data = {
            "quiz": instance.quiz_id,
            "attempts": instance.attempts,
            "released_at": instance.created_at.isoformat(),
        }
        _events(WebhookEvent.GRADES_RELEASED, instance.quiz.course_id, [(str(instance.pk), data)])


def _on_score_change(sender: Any, instance: ScoreChange, created: bool, **_: Any) -> None:
    attempt = instance.response.attempt
    _mark(attempt.quiz_id, {attempt.user_id})
    course = attempt.quiz.course_id
    _events(WebhookEvent.MARK_CHANGED, course, [_mark_changed(instance, attempt, created)])


def _on_regrade(
    sender: Any, run: RegradeRun, changes: list[ScoreChange], attempts: list[Attempt], **_: Any
) -> None:
    by_pk = {attempt.pk: attempt for attempt in attempts}
    _mark(run.quiz_id, {attempt.user_id for attempt in attempts})
    course = run.quiz.course_id
    keyed = [_mark_changed(c, by_pk[c.response.attempt_id], created=True) for c in changes]
    _events(WebhookEvent.MARK_CHANGED, course, keyed)
    if graded := _graded(attempts):
        _events(WebhookEvent.ATTEMPT_GRADED, course, graded)


def _on_user_saved(sender: Any, instance: User, update_fields: Any = None, **_: Any) -> None:
    """An account active again (an administrator reactivated it, or its client did) no
    longer counts as deactivated by its client: if it is deactivated later in Vivabank, the
    client may not undo that."""
    if instance.is_active and (update_fields is None or "is_active" in update_fields):
        ExternalIdentity.objects.filter(user=instance, deactivated_by_client=True).update(
            deactivated_by_client=False
        )


def connect() -> None:
    post_save.connect(_on_user_saved, sender=User, dispatch_uid="lms-user-active")
    post_save.connect(_on_release, sender=QuizRelease, dispatch_uid="lms-release")
    post_save.connect(_on_score_change, sender=ScoreChange, dispatch_uid="lms-score-change")
    post_save.connect(_on_attempt, sender=Attempt, dispatch_uid="lms-attempt")
    scores_regraded.connect(_on_regrade, sender=RegradeRun, dispatch_uid="lms-regrade")

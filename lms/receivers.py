"""Grading -> LMS events through Django signals: grading imports nothing of lms.

Webhooks: an attempt saved as submitted or graded, a release, and a saved mark change
queue `attempt.submitted`, `attempt.graded`, `grades.released` and `mark.changed` for the
subscribed clients of the course; deliveries run as Celery tasks after the commit.

A release of a quiz's results, and a mark or re-mark of an answer (a saved ScoreChange),
mark the students' LMS scores to be sent; the sends run as Celery tasks once the
transaction commits. A bulk regrade writes its ScoreChanges with bulk_create, which
sends no signal: its new scores reach the LMS only with the student's next mark or
the quiz's next release.
"""

from typing import Any

from django.db import transaction
from django.db.models.signals import post_save
from django.utils import timezone

from grading.models import Attempt, AttemptStatus
from grading.models.marking import ScoreChange
from grading.models.release import QuizRelease, ReleaseAction
from lms.models import WebhookEvent
from lms.services.ags import quiz_students, score_syncs_mark
from lms.services.webhooks import event_record
from lms.tasks import deliver_later, publish_later


def _mark(quiz_id: int, user_ids: set[int]) -> None:
    ids = score_syncs_mark(quiz_id=quiz_id, user_ids=user_ids, now=timezone.now())
    if ids:
        transaction.on_commit(lambda: publish_later(ids))


def _event(event: str, course_id: int, key: str, data: dict[str, Any]) -> None:
    ids = event_record(event=event, course_id=course_id, key=key, data=data, now=timezone.now())
    if ids:
        transaction.on_commit(lambda: deliver_later(ids))


def _attempt_data(attempt: Attempt) -> dict[str, Any]:
    return {
        "attempt": attempt.pk,
        "quiz": attempt.quiz_id,
        "user": attempt.user_id,
        "status": attempt.status,
    }


def _on_attempt(sender: Any, instance: Attempt, update_fields: Any = None, **_: Any) -> None:
    fields = set(update_fields or ())
    if "submitted_at" in fields and instance.submitted_at is not None:
        course = instance.quiz.course_id
        _event(WebhookEvent.ATTEMPT_SUBMITTED, course, str(instance.pk), _attempt_data(instance))
    if "graded_at" in fields and instance.status == AttemptStatus.GRADED and instance.graded_at:
        key = f"{instance.pk}:{instance.graded_at.isoformat()}"
        data = {
            **_attempt_data(instance),
            "score": str(instance.score),
            "max_score": str(instance.max_score),
        }
        _event(WebhookEvent.ATTEMPT_GRADED, instance.quiz.course_id, key, data)


def _on_release(sender: Any, instance: QuizRelease, created: bool, **_: Any) -> None:
    if created and instance.action == ReleaseAction.RELEASE:
        _mark(instance.quiz_id, quiz_students(instance.quiz))
        data = {
            "quiz": instance.quiz_id,
            "attempts": instance.attempts,
            "released_at": instance.created_at.isoformat(),
        }
        _event(WebhookEvent.GRADES_RELEASED, instance.quiz.course_id, str(instance.pk), data)


def _on_score_change(sender: Any, instance: ScoreChange, created: bool, **_: Any) -> None:
    attempt = instance.response.attempt
    _mark(attempt.quiz_id, {attempt.user_id})
    data = {
        "attempt": attempt.pk,
        "quiz": attempt.quiz_id,
        "user": attempt.user_id,
        "response": instance.response_id,
        "position": instance.response.position,
    }
    course = attempt.quiz.course_id
    _event(WebhookEvent.MARK_CHANGED, course, f"{instance.pk}:{int(created)}", data)


def connect() -> None:
    post_save.connect(_on_release, sender=QuizRelease, dispatch_uid="lms-release")
    post_save.connect(_on_score_change, sender=ScoreChange, dispatch_uid="lms-score-change")
    post_save.connect(_on_attempt, sender=Attempt, dispatch_uid="lms-attempt")

"""Grading -> LMS events through Django signals: grading imports nothing of lms.

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

from grading.models.marking import ScoreChange
from grading.models.release import QuizRelease, ReleaseAction
from lms.services.ags import quiz_students, score_syncs_mark
from lms.tasks import publish_later


def _mark(quiz_id: int, user_ids: set[int]) -> None:
    ids = score_syncs_mark(quiz_id=quiz_id, user_ids=user_ids, now=timezone.now())
    if ids:
        transaction.on_commit(lambda: publish_later(ids))


def _on_release(sender: Any, instance: QuizRelease, created: bool, **_: Any) -> None:
    if created and instance.action == ReleaseAction.RELEASE:
        _mark(instance.quiz_id, quiz_students(instance.quiz))


def _on_score_change(sender: Any, instance: ScoreChange, created: bool, **_: Any) -> None:
    attempt = instance.response.attempt
    _mark(attempt.quiz_id, {attempt.user_id})


def connect() -> None:
    post_save.connect(_on_release, sender=QuizRelease, dispatch_uid="lms-release")
    post_save.connect(_on_score_change, sender=ScoreChange, dispatch_uid="lms-score-change")

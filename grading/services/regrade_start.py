"""Start a bulk regrade of one question across a quiz's submitted attempts."""

from datetime import datetime

from celery import signature
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet

from grading.errors import NothingToRegrade
from grading.models import AttemptStatus, Response, ResponseStatus
from grading.models.regrade import RegradeItem, RegradeMode, RegradeRun
from quizbank.models import Question, Quiz

DISPATCH_TASK = "grading.regrade_dispatch"
# Code answers still with the runner, and viva answers not yet marked, have no grade to redo.
_REGRADABLE = (ResponseStatus.GRADED, ResponseStatus.ERROR)


def regrade_affected(quiz: Quiz, question: Question) -> QuerySet[Response]:
    """Graded (or failed) answers to any version of `question` in submitted attempts of `quiz`."""
    return Response.objects.filter(
        attempt__quiz=quiz,
        attempt__status__in=[AttemptStatus.SUBMITTED, AttemptStatus.GRADED],
        question_version__question=question,
        status__in=_REGRADABLE,
    )


def regrade_run_start(
    *, quiz: Quiz, question: Question, mode: str, reason: str, actor: User, now: datetime
) -> RegradeRun:
    """Create the run and its items; the workers start on it once this commits."""
    with transaction.atomic():
        rows = list(regrade_affected(quiz, question).values_list("pk", "score"))
        if not rows:
            raise NothingToRegrade("No graded answer to this question in this quiz.")
        run = RegradeRun.objects.create(
            quiz=quiz,
            question=question,
            mode=mode,
            reason=reason,
            created_by=actor,
            target_version_id=question.current_version_id if mode == RegradeMode.APPLY else None,
            total=len(rows),
            created_at=now,
        )
        RegradeItem.objects.bulk_create(
            RegradeItem(run=run, response_id=pk, before=score) for pk, score in rows
        )
        task = signature(DISPATCH_TASK, args=(run.pk,), queue="default")
        transaction.on_commit(task.delay)
        return run

"""Grading's reactions to other parts' events.

A code response is marked `running` when a worker starts its grading job: the runner
queues each job with the job id as the Celery task id, and every job id of a response
starts with JOB_PREFIX, so a worker's `task_prerun` for such an id is that moment.

When a quiz's terms change (`quizbank.events.quiz_terms_changed`), its open attempts
get the deadlines the new terms give them.
"""

from datetime import timedelta
from typing import Any

from celery.signals import task_prerun
from django.utils import timezone

from grading.services.code import JOB_PREFIX, code_result_mark_running
from grading.services.responses import attempts_retime
from quizbank.events import quiz_terms_changed
from quizbank.models import Quiz


def _on_task_prerun(task_id: str | None = None, **_: Any) -> None:
    if task_id and task_id.startswith(JOB_PREFIX):
        code_result_mark_running(job_id=task_id)


def _on_quiz_terms_changed(
    sender: Any, quiz: Quiz, grace_before: timedelta, user_ids: list[int] | None = None, **_: Any
) -> None:
    attempts_retime(quiz=quiz, user_ids=user_ids, grace_before=grace_before, now=timezone.now())


def connect() -> None:
    task_prerun.connect(_on_task_prerun, weak=False, dispatch_uid="grading-mark-running")
    quiz_terms_changed.connect(
        _on_quiz_terms_changed, weak=False, dispatch_uid="grading-retime-attempts"
    )

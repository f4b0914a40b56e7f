"""Grading's reactions to other parts' events.

A code response is marked `running` while a worker grades its job, once the grading has
taken longer than RUNNING_MARK_AFTER_S: the runner queues each job with the job id as the
Celery task id, and every job id of a response starts with JOB_PREFIX, so a worker's
`task_prerun` for such an id starts the clock and its `task_postrun` stops it. Most gradings
end well within it, and go from `queued` to `graded` without a write they never needed on
the way (a database transaction, about 2 ms of the worker's time before the job starts).

When a quiz's terms change (`quizbank.events.quiz_terms_changed`), its open attempts
get the deadlines the new terms give them.
"""

import logging
import threading
from datetime import timedelta
from typing import Any

from celery.signals import task_postrun, task_prerun
from django.db import connections
from django.utils import timezone

from grading.services.code import JOB_PREFIX, code_result_mark_running
from grading.services.responses import attempts_retime
from quizbank.events import quiz_terms_changed
from quizbank.models import Quiz

RUNNING_MARK_AFTER_S = 0.2
logger = logging.getLogger(__name__)
_running_marks: dict[str, threading.Timer] = {}


def _mark_running(job_id: str) -> None:
    try:
        code_result_mark_running(job_id=job_id)
    except Exception:  # noqa: BLE001 - informative only: the grading goes on regardless
        logger.warning("marking job %s running failed", job_id, exc_info=True)
    finally:
        connections.close_all()  # this timer thread's own connection


def _on_task_prerun(task_id: str | None = None, **_: Any) -> None:
    if task_id and task_id.startswith(JOB_PREFIX):
        timer = threading.Timer(RUNNING_MARK_AFTER_S, _mark_running, args=(task_id,))
        timer.daemon = True
        _running_marks[task_id] = timer
        timer.start()


def _on_task_postrun(task_id: str | None = None, **_: Any) -> None:
    timer = _running_marks.pop(task_id or "", None)
    if timer is not None:
        timer.cancel()


def _on_quiz_terms_changed(
    sender: Any, quiz: Quiz, grace_before: timedelta, user_ids: list[int] | None = None, **_: Any
) -> None:
    attempts_retime(quiz=quiz, user_ids=user_ids, grace_before=grace_before, now=timezone.now())


def connect() -> None:
    task_prerun.connect(_on_task_prerun, weak=False, dispatch_uid="grading-mark-running")
    task_postrun.connect(_on_task_postrun, weak=False, dispatch_uid="grading-mark-running-end")
    quiz_terms_changed.connect(
        _on_quiz_terms_changed, weak=False, dispatch_uid="grading-retime-attempts"
    )

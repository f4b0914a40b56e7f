"""Celery entry points of grading: take ids or JSON, call one service."""

from dataclasses import asdict, is_dataclass
from typing import Any

from celery import shared_task
from django.db import OperationalError
from django.utils import timezone

import grading.tasks_examiner  # noqa: F401  (registers the examiner tasks)
from grading.services.attempt_submit import attempts_close_overdue
from grading.services.code_results import code_result_apply
from grading.services.code_sweep import code_responses_sweep


def _payload(result: Any) -> dict[str, Any]:
    if is_dataclass(result) and not isinstance(result, type):
        return asdict(result)
    return dict(result)


# A locked SQLite file (`make run` under load) or a restarting PostgreSQL is retried with
# exponential back-off (1, 2, 4 ... 60 s, jittered); past the last try the sweeper applies the
# stored result.
@shared_task(
    name="grading.apply_code_result",
    acks_late=True,
    ignore_result=True,
    autoretry_for=(OperationalError,),
    retry_backoff=1,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=10,
)
def apply_code_result(result: dict[str, Any]) -> bool:
    """The runner's callback: store a grading result (idempotent by job id)."""
    return code_result_apply(payload=_payload(result), now=timezone.now())


@shared_task(name="grading.sweep_stuck_code_answers", ignore_result=True)
def sweep_stuck_code_answers() -> dict[str, int]:
    """Beat: apply or re-send code answers waiting past their job's time limit and a margin."""
    return code_responses_sweep(now=timezone.now())


@shared_task(name="grading.close_overdue_attempts", ignore_result=True)
def close_overdue_attempts() -> int:
    """Beat: submit attempts whose deadline and grace period have passed."""
    return attempts_close_overdue(now=timezone.now())

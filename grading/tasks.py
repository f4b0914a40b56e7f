"""Celery entry points of grading: take ids or JSON, call one service."""

from dataclasses import asdict, is_dataclass
from typing import Any

from celery import shared_task
from django.db import OperationalError
from django.utils import timezone

from grading.services.code import code_responses_sweep, code_result_apply
from grading.services.regrade.runs import regrade_chunk, regrade_dispatch
from grading.services.responses import attempts_close_overdue
from runner import api as runner_api


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
    """The runner's callback: store a grading result (idempotent by job id). The grading
    worker runs it in-process right after grading; it arrives as a message on `default`
    only when that failed (these retries) or from a job queued by an older release."""
    return code_result_apply(payload=_payload(result), now=timezone.now())


@shared_task(name="grading.sweep_stuck_code_answers", ignore_result=True)
def sweep_stuck_code_answers() -> dict[str, int]:
    """Beat: apply or re-send code answers waiting past their job's time limit and a margin."""
    return code_responses_sweep(now=timezone.now())


# Bounded, so one slow attempt cannot hold a worker; the next beat picks up what is left.
@shared_task(
    name="grading.close_overdue_attempts", ignore_result=True, soft_time_limit=120, time_limit=150
)
def close_overdue_attempts() -> int:
    """Beat: submit attempts whose deadline and grace period have passed."""
    return attempts_close_overdue(now=timezone.now())


@shared_task(name="grading.regrade_dispatch", acks_late=True, ignore_result=True)
def regrade_dispatch_task(run_id: int) -> int:
    """Split a run into chunks and send them to the workers as a group."""
    return regrade_dispatch(run_id=run_id, now=timezone.now())


# Above the chunk's own grading budget (120 s) plus one slow answer.
@shared_task(
    name="grading.regrade_chunk",
    acks_late=True,
    ignore_result=True,
    soft_time_limit=240,
    time_limit=270,
)
def regrade_chunk_task(run_id: int, item_ids: list[int], queue: str = "default") -> int:
    """Regrade a chunk in this worker; what the time budget left goes out as a new chunk.

    Code chunks go to the `cpu`/`gpu` queues, whose workers grade in their own warm sandbox;
    only a task may hand the worker's `grade` to a service.
    """
    from runner.worker import grade, standby_top_up  # worker-only: it imports torch

    def grade_then_top_up(job: runner_api.GradingJob) -> runner_api.GradingResult:
        result = grade(job)
        standby_top_up()
        return result

    left = regrade_chunk(
        run_id=run_id, item_ids=item_ids, now=timezone.now(), grade=grade_then_top_up
    )
    if left:
        regrade_chunk_task.apply_async(args=(run_id, left), kwargs={"queue": queue}, queue=queue)
    return len(item_ids) - len(left)

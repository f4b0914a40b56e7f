"""The runner's public interface for the web tier: the only module other apps call.

`submit_grading` queues a job on the `cpu` or `gpu` Celery queue; `request_run`
and `request_generator` queue a job on `cpu` and wait for its result. Nothing
here runs code: `runner.worker` does, on workers. The runner's types
(`runner.types`) are re-exported so callers need this one module.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from runner.types import (
    FAILURE_KINDS,
    HIDDEN_CASE_FAILED,
    HIDDEN_CASE_MESSAGES,
    CaseResult,
    CompareSettings,
    Device,
    GeneratorFailed,
    GradingJob,
    GradingResult,
    Limits,
    NoWorkerAnswered,
    RunResult,
    Status,
    plain,
)

if TYPE_CHECKING:
    from celery.app.task import Task
    from celery.canvas import Signature

__all__ = [
    "FAILURE_KINDS",
    "HIDDEN_CASE_FAILED",
    "HIDDEN_CASE_MESSAGES",
    "CaseResult",
    "CompareSettings",
    "Device",
    "GeneratorFailed",
    "GradingJob",
    "GradingResult",
    "JobProgress",
    "Limits",
    "NoWorkerAnswered",
    "RunResult",
    "Status",
    "grading_time_limit_s",
    "job_progress",
    "jobs_progress",
    "queue_for",
    "request_generator",
    "request_run",
    "run_patience_s",
    "run_result",
    "start_run",
    "submit_grading",
]


def queue_for(device: Device) -> str:
    """The Celery queue a job on `device` goes to: `gpu` for cuda, `cpu` otherwise."""
    return "gpu" if device == Device.CUDA else "cpu"


def submit_grading(
    job: GradingJob, *, callback: Signature[Any] | None = None, expires_s: float | None = None
) -> str:
    """Queue `job` for a worker; the task id is the job id. `callback` (a task that takes the
    result dict) runs in the grading worker as soon as the job is graded, or is queued from
    there if it fails (runner.tasks.result_deliver); a message still queued `expires_s` after
    sending is dropped unrun (for a re-send)."""
    from runner.tasks import UNSHOWN_ARGUMENTS, grade_submission, grading_time_limits

    soft, hard = grading_time_limits(job)
    expiry: dict[str, Any] = {} if expires_s is None else {"expires": expires_s}
    grade_submission.apply_async(
        args=(job.to_dict(),),
        kwargs={"on_result": None if callback is None else dict(callback)},
        task_id=job.job_id,
        queue=queue_for(job.device),
        soft_time_limit=soft,
        time_limit=hard,
        **expiry,
        **UNSHOWN_ARGUMENTS,
    )
    return job.job_id


def grading_time_limit_s(job: GradingJob) -> int:
    """The longest a worker may spend on `job` (its hard task limit), in seconds."""
    from runner.tasks import grading_time_limits

    return grading_time_limits(job)[1]


@dataclass(frozen=True)
class JobProgress:
    """When a worker last picked a job up, and its result and finishing time once finished
    (None: not yet)."""

    claimed_at: datetime | None
    result: dict[str, Any] | None
    finished_at: datetime | None = None


def job_progress(job_id: str) -> JobProgress:
    """How far job `job_id` got; every field is None for a job no worker has picked up."""
    return jobs_progress([job_id])[job_id]


def jobs_progress(job_ids: list[str]) -> dict[str, JobProgress]:
    """`job_progress` of each job, read at once."""
    from runner.records import job_records_progress

    found = job_records_progress(job_ids=job_ids)
    return {job_id: JobProgress(*progress) for job_id, progress in found.items()}


# How long the web tier waits for a worker by default: a warm one answers in well under a second.
REQUEST_TIMEOUT_S = 30.0


def _no_worker(timeout_s: float) -> str:
    return f"no grading worker answered within {timeout_s:g} s; try again"


def _send(
    task: Task[Any, Any], kind: str, args: tuple[Any, ...], limits: Limits, timeout_s: float
) -> str:
    """Queue `task` on `cpu` under a fresh job id, dropped unrun if still queued after
    `timeout_s` (the caller gave up); the job id."""
    from runner.tasks import UNSHOWN_ARGUMENTS, time_limits

    job_id = f"{kind}-{uuid.uuid4()}"
    soft, hard = time_limits(limits)
    task.apply_async(
        args=(job_id, *args, plain(limits)),
        task_id=job_id,
        queue="cpu",
        expires=timeout_s,
        soft_time_limit=soft,
        time_limit=hard,
        **UNSHOWN_ARGUMENTS,
    )
    return job_id


def _request(
    task: Task[Any, Any], kind: str, args: tuple[Any, ...], limits: Limits, timeout_s: float
) -> dict[str, Any] | None:
    """Queue `task` on `cpu` under a fresh job id; its stored result, or None if none came."""
    from runner.records import job_record_wait

    job_id = _send(task, kind, args, limits, timeout_s)
    return job_record_wait(job_id=job_id, timeout_s=timeout_s)


def request_run(
    source: str, limits: Limits | None = None, *, timeout_s: float = REQUEST_TIMEOUT_S
) -> RunResult:
    """For the web tier: have a worker run a try-it snippet and wait for its RunResult.

    Never runs code in this process; raises NoWorkerAnswered when no worker finishes it in
    `timeout_s` (a job still queued then is dropped unrun).
    """
    from runner.tasks import run_snippet

    data = _request(run_snippet, "run", (source,), limits or Limits(), timeout_s)
    if data is None:
        raise NoWorkerAnswered(_no_worker(timeout_s))
    return RunResult.from_dict(data)


def start_run(
    source: str, limits: Limits | None = None, *, timeout_s: float = REQUEST_TIMEOUT_S
) -> str:
    """For the web tier: queue a try-it snippet and return its job id at once (poll it with
    `run_result`); a job no worker picks up within `timeout_s` is dropped unrun."""
    from runner.tasks import run_snippet

    return _send(run_snippet, "run", (source,), limits or Limits(), timeout_s)


def run_patience_s(limits: Limits | None = None, timeout_s: float = REQUEST_TIMEOUT_S) -> float:
    """Seconds after `start_run` past which a run with no result will never have one: still
    queued, it was dropped unrun; picked up, its task's hard time limit has ended it."""
    from runner.tasks import time_limits

    return timeout_s + time_limits(limits or Limits())[1]


def run_result(job_id: str) -> RunResult | None:
    """The RunResult of a job `start_run` queued, or None while it has not finished."""
    data = job_progress(job_id).result
    return None if data is None else RunResult.from_dict(data)


def request_generator(
    source: str, seed: int, limits: Limits | None = None, *, timeout_s: float = REQUEST_TIMEOUT_S
) -> dict[str, Any]:
    """For the web tier: have a worker run an author's generate(rng) with `seed`; its dict.

    Never runs code in this process. Raises GeneratorFailed when the generator fails or no
    worker answers in time; kombu's error when the broker cannot take the job.
    """
    from runner.tasks import generate_variant

    data = _request(generate_variant, "generate", (source, seed), limits or Limits(), timeout_s)
    if data is None:
        raise GeneratorFailed(_no_worker(timeout_s))
    value = data.get("value")
    if data.get("status") != Status.OK or not isinstance(value, dict):
        raise GeneratorFailed(str(data.get("message") or "the generator returned no parameters"))
    return value

"""Celery entry points: JSON in, one service, JSON out (a grading also hands its result on)."""

from __future__ import annotations

import logging
import math
import threading
from typing import Any

from celery import shared_task, signature
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import task_postrun, worker_process_init, worker_process_shutdown
from django.db import OperationalError

from runner import types
from runner.models import JobKind
from runner.records import job_record_claim, job_record_finish

# A cold start of the zygote, on top of the sandbox runs themselves.
_STARTUP_S = 30.0
_HARD_MARGIN_S = 15


def time_limits(limits: types.Limits, runs: int = 2) -> tuple[int, int]:
    """Soft and hard task limits (whole seconds) a little above what `runs` sandbox runs take."""
    soft = math.ceil(runs * limits.time_s + _STARTUP_S)
    return soft, soft + _HARD_MARGIN_S


def grading_time_limits(job: types.GradingJob) -> tuple[int, int]:
    """Task limits for a grading: the reference, the visible and the hidden cases' runs, and
    up to `TIMING_RUNS` timing runs of each of three kinds per efficiency case."""
    timed = sum(1 for case in job.cases if _has_efficiency(case))
    return time_limits(job.limits, runs=3 + 3 * types.TIMING_RUNS * timed)


def _has_efficiency(case: object) -> bool:
    checks = case.get("checks") if isinstance(case, dict) else None
    if not isinstance(checks, list):
        return False
    kinds = [check.get("kind") if isinstance(check, dict) else check for check in checks]
    return "efficiency" in kinds


_DEFAULT_SOFT, _DEFAULT_HARD = time_limits(types.Limits())
# Celery logs a task's arguments and result and sends them in its events (`celery events`,
# Flower): a job holds the answer's source and the reference solution, a verdict the answer's
# output and its failed cases' messages, none of it for a monitor's eyes. The task id, the job
# id, says which job it is (and building the arguments' repr cost a quarter of each send).
UNSHOWN_ARGUMENTS: dict[str, Any] = {"argsrepr": "(...)", "kwargsrepr": "{...}"}
_RESULT_UNSHOWN = 0


def _poison(stopped: int) -> str:
    return (
        f"this job stopped its worker {stopped} times without finishing, so it is not run "
        "again; it ends here as an error (an examiner can regrade the answer)"
    )


logger = logging.getLogger(__name__)


def result_deliver(result: dict[str, Any], callback: dict[str, Any] | None) -> None:
    """Run the caller's callback task on `result` here, in the grading worker: no second trip
    through the broker and another worker. If it fails here (a restarting database), it is
    queued as a message instead, whose retries (and the caller's sweeper) take over."""
    if callback is None:
        return
    task = signature(callback)
    try:
        task.type(result)
    except Exception:  # noqa: BLE001 - the task's edge: any failure takes the queued way
        logger.warning(
            "applying the result of job %s in the worker failed; queued instead",
            result.get("job_id"),
            exc_info=True,
        )
        task.apply_async(args=(result,), **UNSHOWN_ARGUMENTS)


# A job's record meeting a locked SQLite file (`make run` while an import writes) or a
# restarting PostgreSQL is tried again soon (after 1 and 2 s), not left to the grading
# sweeper minutes later; nothing else would look for a Run or a variant again, and a page
# polls for them. A claim that failed counted no delivery, and two retries never make a job
# look like one that stopped its worker (MAX_DELIVERIES).
DATABASE_RETRIES: dict[str, Any] = {
    "autoretry_for": (OperationalError,),
    "retry_backoff": 1,
    "retry_backoff_max": 8,
    "retry_jitter": False,
    "max_retries": 2,
}


@shared_task(
    name="runner.tasks.grade_submission",
    acks_late=True,
    **DATABASE_RETRIES,
    reject_on_worker_lost=True,
    resultrepr_maxsize=_RESULT_UNSHOWN,
    soft_time_limit=_DEFAULT_SOFT,
    time_limit=_DEFAULT_HARD,
)
def grade_submission(
    job_data: dict[str, Any], on_result: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Grade one job (a GradingJob dict) and hand the result to `on_result` (a task signature);
    a job id that already finished is not run again, and its stored result is handed on."""
    job = types.GradingJob.from_dict(job_data)
    result = _grade_once(job)
    result_deliver(result, on_result)
    return result


def _grade_once(job: types.GradingJob) -> dict[str, Any]:
    def poisoned(stopped: int) -> dict[str, Any]:
        # internal: the answer was never judged (it may be the answer, or a worker killed
        # for another reason); its student gets no final 0, and an examiner sees the error.
        result = types.GradingResult(
            job.job_id, types.Status.INTERNAL, 0.0, message=_poison(stopped)
        )
        return result.to_dict()

    stored = job_record_claim(job_id=job.job_id, kind=JobKind.GRADE, poisoned=poisoned)
    if stored is not None:
        return stored
    from runner import worker  # worker-only: it imports torch, which the web tier must not

    try:
        result = worker.grade(job)
    except SoftTimeLimitExceeded:
        result = types.GradingResult(
            job_id=job.job_id,
            status=types.Status.INTERNAL,
            score=0.0,
            message="the grading task ran out of time",
        )
    data = result.to_dict()
    return job_record_finish(job_id=job.job_id, kind=JobKind.GRADE, result=data, score=result.score)


@shared_task(
    name="runner.tasks.run_snippet",
    acks_late=True,
    **DATABASE_RETRIES,
    reject_on_worker_lost=True,
    resultrepr_maxsize=_RESULT_UNSHOWN,
    soft_time_limit=_DEFAULT_SOFT,
    time_limit=_DEFAULT_HARD,
)
def run_snippet(run_id: str, source: str, limits: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run a try-it snippet once per run id and return the RunResult dict."""
    stored = job_record_claim(
        job_id=run_id,
        kind=JobKind.RUN,
        poisoned=lambda stopped: types.RunResult(
            types.Status.ERROR, None, message=_poison(stopped)
        ).to_dict(),
    )
    if stored is not None:
        return stored
    from runner import worker  # worker-only: it imports torch, which the web tier must not

    parsed = types.Limits(**limits) if limits else types.Limits()
    data = worker.execute(source, parsed).to_dict()
    return job_record_finish(job_id=run_id, kind=JobKind.RUN, result=data)


@shared_task(
    name="runner.tasks.generate_variant",
    acks_late=True,
    **DATABASE_RETRIES,
    reject_on_worker_lost=True,
    resultrepr_maxsize=_RESULT_UNSHOWN,
    soft_time_limit=_DEFAULT_SOFT,
    time_limit=_DEFAULT_HARD,
)
def generate_variant(
    job_id: str, source: str, seed: int, limits: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run generate(rng) once per job id: {"status": "ok", "value": dict} or an error status."""
    stored = job_record_claim(
        job_id=job_id,
        kind=JobKind.GENERATE,
        poisoned=lambda stopped: {"status": types.Status.ERROR.value, "message": _poison(stopped)},
    )
    if stored is not None:
        return stored
    from runner import worker  # worker-only: it imports torch, which the web tier must not

    parsed = types.Limits(**limits) if limits else types.Limits()
    try:
        data = {
            "status": types.Status.OK.value,
            "value": worker.run_generator(source, seed, parsed),
        }
    except types.GeneratorFailed as error:
        data = {"status": types.Status.ERROR.value, "message": str(error)}
    except SoftTimeLimitExceeded:
        data = {
            "status": types.Status.INTERNAL.value,
            "message": "the generator task ran out of time",
        }
    return job_record_finish(job_id=job_id, kind=JobKind.GENERATE, result=data)


# The registry pulls in torch (through the sandbox's child code); only workers need it, and the
# web tier imports this module to enqueue, so it is imported inside the worker hooks.
@worker_process_init.connect
def _warm_supervisor(**_: Any) -> None:
    from runner import registry

    # Start the zygote in the background so the first job does not wait for `import torch`.
    threading.Thread(target=registry.get_supervisor, daemon=True).start()


@task_postrun.connect
def _top_up_standby(**_: Any) -> None:
    # After the task, its result applied: the forks never compete with a job for a core.
    from runner import registry

    registry.top_up()


@worker_process_shutdown.connect
def _stop_supervisor(**_: Any) -> None:
    from runner import registry

    registry.shutdown()

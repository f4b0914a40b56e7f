"""Code answers: build and send runner jobs, apply their results, sweep the stuck ones."""

import logging
import uuid
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from celery import Signature, signature
from django.conf import settings
from django.db import DatabaseError, transaction

from config.commits import commit_without_waiting_for_disk
from grading.content import reference_source, variant_content
from grading.models import Response, ResponseStatus
from grading.scoring.verdict import clamp
from grading.services.attempts import (
    MACHINE_GRADING,
    attempt_lock_through,
    attempt_refresh_total,
)
from runner import api as runner_api
from runner.contract import parse_code_question

# Build a runner job for a code response and send it to the runner after commit.

APPLY_RESULT_TASK = "grading.apply_code_result"
JOB_PREFIX = "response-"


def code_job(response: Response, job_id: str) -> runner_api.GradingJob:
    """The runner job for a code response, built from the exact variant the student saw.

    The runner's contract parses the question, so a stored question it no longer accepts
    raises `runner.contract.CaseError` naming the field instead of grading half a question.
    """
    content = variant_content(
        response.question_version.content, response.params, response.generated_answers
    )
    source = str((response.answer or {}).get("source", ""))
    spec = parse_code_question(content)
    return spec.job(job_id=job_id, source=source, reference_source=reference_source(content))


def new_job_id(response: Response) -> str:
    return f"{JOB_PREFIX}{response.pk}-{uuid.uuid4().hex[:12]}"


def code_result_callback() -> Signature[Any]:
    """The task the runner hands a grading result to: run in the grading worker itself, and
    queued on `default` only when that fails there."""
    # By name: the task module imports services, so services must not import it.
    return signature(APPLY_RESULT_TASK, queue="default")


def code_job_enqueue_on_commit(
    job: runner_api.GradingJob, *, expires_s: float | None = None
) -> None:
    """Hand the job to the runner once the response row is committed (a re-send keeps the
    job id, so a worker that already finished it returns the stored result)."""
    callback = code_result_callback()
    # robust: a broker that is down (Redis restarting, a full broker disk) must not turn a
    # committed submit into an error; the error is logged and the sweeper sends the job later.
    transaction.on_commit(
        lambda: runner_api.submit_grading(job, callback=callback, expires_s=expires_s),
        robust=True,
    )


# Apply the runner's verdict to a code response, once per job id.

_OUTPUT_CAP = 4000
GRADER_FAILED = (
    "This answer could not be graded because of a problem on our side, not in your answer; "
    "an examiner will grade it again."
)
logger = logging.getLogger(__name__)


def _case_feedback(case: dict[str, Any]) -> dict[str, Any]:
    if case.get("hidden"):
        # Only the runner's fixed phrases (which kind of check failed) pass, never values;
        # the case's name could describe its inputs, so it is replaced too.
        message = case.get("message", "")
        shown = message if message in runner_api.HIDDEN_CASE_MESSAGES else ""
        passed = bool(case.get("passed"))
        return {"name": "hidden case", "hidden": True, "passed": passed, "message": shown}
    keys = ("name", "passed", "weight", "message", "max_abs_error", "max_rel_error")
    return {key: case.get(key) for key in keys}


def code_feedback(payload: dict[str, Any]) -> dict[str, Any]:
    """What a student may see of a grading result: no reference output, hidden cases masked."""
    return {
        "status": str(payload.get("status", "")),
        "message": str(payload.get("message", ""))[:_OUTPUT_CAP],
        "stdout": str(payload.get("stdout", ""))[:_OUTPUT_CAP],
        "stderr": str(payload.get("stderr", ""))[:_OUTPUT_CAP],
        "cases": [_case_feedback(case) for case in _cases(payload)],
    }


def _cases(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The result's cases that are objects (a malformed payload is applied, never raised)."""
    cases = payload.get("cases")
    return [case for case in cases if isinstance(case, dict)] if isinstance(cases, list) else []


def code_result_apply(*, payload: dict[str, Any], now: datetime) -> bool:
    """Store the verdict of job `payload["job_id"]`; False if unknown or already applied."""
    job_id = str(payload.get("job_id", ""))
    if not job_id.startswith(JOB_PREFIX):
        return False  # no response's job: an answer not yet sent has an empty job id
    verdict = _verdict(payload)
    with transaction.atomic():
        # A code grade is worked out again from what is on disk (the submitted answer and its
        # job): if PostgreSQL itself crashes before this commit reaches the disk, the sweeper
        # finds the answer waiting and grades it again. Any later ordinary commit (a release,
        # a mark) flushes it first.
        commit_without_waiting_for_disk()
        # The attempt is locked first, as every writer of its answers does (response_lock);
        # the answer itself needs no reading: one UPDATE writes it while it is still waiting.
        attempt = attempt_lock_through(job_id=job_id)
        if attempt is None:
            return False
        waiting = Response.objects.filter(job_id=job_id, status__in=MACHINE_GRADING)
        if not waiting.update(**verdict, graded_at=now):
            return False
        attempt_refresh_total(attempt=attempt, now=now)
    return True


def _share(score: object) -> float:
    """A result's score as a share in [0, 1]; one that is not a number counts as 0."""
    try:
        return clamp(float(score))  # type: ignore[arg-type]  # checked by the except
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int past float's range
        return 0.0


def _verdict(payload: dict[str, Any]) -> dict[str, Any]:
    """The status, score and feedback a grading result gives its answer."""
    if payload.get("status") == "internal":
        # The grader failed, not the answer (a broken reference, a lost sandbox): the
        # student is told so without the details, which stay in the log and the job.
        logger.error(
            "grading job %s failed in the grader: %s",
            payload.get("job_id"),
            str(payload.get("message", ""))[:_OUTPUT_CAP],
        )
        feedback = {"status": "internal", "message": GRADER_FAILED, "cases": []}
        return {"status": ResponseStatus.ERROR, "score": None, "feedback": feedback}
    return {
        "status": ResponseStatus.GRADED,
        "score": _share(payload.get("score")),
        "feedback": code_feedback(payload),
    }


def code_result_mark_running(*, job_id: str) -> bool:
    """queued -> running when the runner picks the job up."""
    with transaction.atomic():
        # Informative only (the sweeper treats queued and running alike): no disk wait.
        commit_without_waiting_for_disk()
        updated = Response.objects.filter(job_id=job_id, status=ResponseStatus.QUEUED).update(
            status=ResponseStatus.RUNNING
        )
    return updated > 0


# Code answers stuck waiting for the runner: apply a stored result or send the job again.


def _patience(job: runner_api.GradingJob) -> timedelta:
    """The job's time limit plus the margin: longer than a live worker can hold the job."""
    limit_s = runner_api.grading_time_limit_s(job)
    return timedelta(seconds=limit_s + settings.GRADING_STUCK_MARGIN_S)


def code_response_sweep(*, response: Response, now: datetime) -> str:
    """One waiting code answer: "waiting" while its job may still be queued or running,
    "applied" when the runner already holds its result, "resent" when the job was lost."""
    job = code_job(response, response.job_id)
    patience = _patience(job)
    submitted_at = response.attempt.submitted_at
    if submitted_at is None or now < submitted_at + patience:
        return "waiting"
    progress = runner_api.job_progress(response.job_id)
    if progress.result is not None:
        code_result_apply(payload=progress.result, now=now)
        return "applied"
    if progress.claimed_at is not None and now < progress.claimed_at + patience:
        return "waiting"  # a worker picked it up lately and may still be grading it
    # A copy still queued at the next sweep is dropped, so re-sends never pile up.
    code_job_enqueue_on_commit(job, expires_s=settings.GRADING_SWEEP_STUCK_EVERY_S)
    return "resent"


def code_responses_sweep(*, now: datetime, limit: int = 200) -> dict[str, int]:
    """Beat: sweep the code answers queued or running for longer than the margin, oldest
    first; how many ended "waiting", "applied", "resent" and "failed" (logged; one answer
    that cannot be swept never stops the sweep of the others)."""
    earliest = now - timedelta(seconds=settings.GRADING_STUCK_MARGIN_S)
    stuck = (
        Response.objects.filter(status__in=MACHINE_GRADING, attempt__submitted_at__lt=earliest)
        .exclude(job_id="")
        .select_related("attempt", "question_version")
        .order_by("attempt__submitted_at", "pk")[:limit]
    )
    outcomes: Counter[str] = Counter()
    for response in stuck:
        try:
            outcomes[code_response_sweep(response=response, now=now)] += 1
        except DatabaseError:
            raise  # the database itself: the next beat tries the whole sweep again
        except Exception:  # noqa: BLE001 - one answer that cannot be swept must not stop the rest
            logger.exception(
                "sweeping code answer %s failed; the next sweep tries again", response.pk
            )
            outcomes["failed"] += 1
    return dict(outcomes)

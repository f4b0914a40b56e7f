"""Code answers stuck waiting for the runner: apply a stored result or send the job again."""

from collections import Counter
from datetime import datetime, timedelta

from django.conf import settings

from grading.models import Response, ResponseStatus
from grading.services.code_jobs import code_job, code_job_enqueue_on_commit
from grading.services.code_results import code_result_apply
from runner import api as runner_api

_WAITING = (ResponseStatus.QUEUED, ResponseStatus.RUNNING)


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
    first; how many ended "waiting", "applied" and "resent"."""
    earliest = now - timedelta(seconds=settings.GRADING_STUCK_MARGIN_S)
    stuck = (
        Response.objects.filter(status__in=_WAITING, attempt__submitted_at__lt=earliest)
        .exclude(job_id="")
        .select_related("attempt", "question_version")
        .order_by("attempt__submitted_at", "pk")[:limit]
    )
    return dict(Counter(code_response_sweep(response=response, now=now) for response in stuck))

"""Build a runner job for a code response and send it to the runner after commit."""

import uuid
from typing import Any

from celery import signature
from django.db import transaction

from grading.content import reference_source, variant_content
from grading.models import Response
from runner import api as runner_api

APPLY_RESULT_TASK = "grading.apply_code_result"
JOB_PREFIX = "response-"


def _compare(content: dict[str, Any]) -> runner_api.CompareSettings:
    known = runner_api.CompareSettings.__dataclass_fields__
    values = {k: v for k, v in dict(content.get("compare") or {}).items() if k in known}
    return runner_api.CompareSettings(**values)


def _limits(content: dict[str, Any]) -> runner_api.Limits:
    known = runner_api.Limits.__dataclass_fields__
    values = {k: v for k, v in dict(content.get("limits") or {}).items() if k in known}
    return runner_api.Limits(**values)


def code_job(response: Response, job_id: str) -> runner_api.GradingJob:
    """The runner job for a code response, built from the exact variant the student saw."""
    content = variant_content(
        response.question_version.content, response.params, response.generated_answers
    )
    answer = response.answer or {}
    return runner_api.GradingJob(
        job_id=job_id,
        source=str(answer.get("source", "")),
        entry_point=str(content.get("entry_point", "")),
        reference_source=reference_source(content),
        cases=list(content.get("cases", [])),
        compare=_compare(content),
        device=runner_api.Device(str(content.get("device", "cpu"))),
        limits=_limits(content),
        forbidden=[str(name) for name in content.get("forbidden", [])],
        efficiency={k: float(v) for k, v in dict(content.get("efficiency") or {}).items()},
    )


def new_job_id(response: Response) -> str:
    return f"{JOB_PREFIX}{response.pk}-{uuid.uuid4().hex[:12]}"


def code_job_enqueue_on_commit(response: Response, *, expires_s: float | None = None) -> None:
    """Hand the job to the runner once the response row is committed (a re-send keeps the
    job id, so a worker that already finished it returns the stored result)."""
    job = code_job(response, response.job_id)
    # By name: the task module imports services, so services must not import it.
    callback = signature(APPLY_RESULT_TASK, queue="default")
    transaction.on_commit(
        lambda: runner_api.submit_grading(job, callback=callback, expires_s=expires_s)
    )

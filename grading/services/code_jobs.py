"""Build a runner job for a code response and send it to the runner after commit."""

import uuid

from celery import signature
from django.db import transaction

from grading.content import reference_source, variant_content
from grading.models import Response
from runner import api as runner_api
from runner.contract import parse_code_question

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


def code_job_enqueue_on_commit(
    job: runner_api.GradingJob, *, expires_s: float | None = None
) -> None:
    """Hand the job to the runner once the response row is committed (a re-send keeps the
    job id, so a worker that already finished it returns the stored result)."""
    # By name: the task module imports services, so services must not import it.
    callback = signature(APPLY_RESULT_TASK, queue="default")
    # robust: a broker that is down (Redis restarting, a full broker disk) must not turn a
    # committed submit into an error; the error is logged and the sweeper sends the job later.
    transaction.on_commit(
        lambda: runner_api.submit_grading(job, callback=callback, expires_s=expires_s),
        robust=True,
    )

"""Grade one response when its attempt is submitted."""

import logging
from datetime import datetime

from grading.content import variant_content
from grading.models import Response, ResponseStatus
from grading.scoring import score_answer
from grading.services.code_jobs import code_job, code_job_enqueue_on_commit, new_job_id
from runner.api import GradingJob
from runner.contract import CaseError

logger = logging.getLogger(__name__)

_FIELDS = ["status", "score", "feedback", "job_id", "graded_at"]


def _set(response: Response, status: str, score: float | None, now: datetime | None) -> None:
    response.status = status
    response.score = score
    response.graded_at = now


def response_grade(*, response: Response, now: datetime) -> None:
    """Score choice/numeric/text now, queue code for the runner, leave viva for an examiner."""
    content = variant_content(
        response.question_version.content, response.params, response.generated_answers
    )
    qtype = str(content.get("type"))
    response.feedback = {}
    job = None
    if qtype == "viva":
        _set(response, ResponseStatus.NEEDS_MARKING, None, None)
    elif response.answer is None:
        response.feedback = {"general": "No answer was given."}
        _set(response, ResponseStatus.GRADED, 0.0, now)
    elif qtype == "code":
        response.job_id = new_job_id(response)
        job = _queue_code(response)
    else:
        verdict = score_answer(content, response.answer)
        response.feedback = verdict.feedback
        _set(response, ResponseStatus.GRADED, verdict.score, now)
    response.save(update_fields=_FIELDS)
    if job is not None:
        code_job_enqueue_on_commit(job)


def _queue_code(response: Response) -> GradingJob | None:
    """Queued for the runner with its job, or an error an examiner can see when the stored
    question is one the runner's contract refuses (the answer stays, ready for a regrade)."""
    try:
        job = code_job(response, response.job_id)
    except CaseError as error:
        version_id = response.question_version_id
        logger.error("question version %s is not a valid code question: %s", version_id, error)
        response.feedback = {"general": f"This question cannot be graded: {error}."}
        _set(response, ResponseStatus.ERROR, None, None)
        return None
    _set(response, ResponseStatus.QUEUED, None, None)
    return job

"""Work out a regraded answer's new score in this process, without writing anything.

Code answers are graded here by the worker's `grade` (its sandbox is warm), which the
chunk task passes in, so a chunk costs one task instead of a grade task and a callback
per answer.
"""

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from grading.content import variant_content
from grading.models import Response
from grading.models.regrade import RegradeItem
from grading.scoring import score_answer
from grading.services.code import code_feedback, code_job
from runner import api as runner_api
from runner.contract import CaseError

_RUNNER_FAILED = "The runner could not grade this answer."
Grade = Callable[[runner_api.GradingJob], runner_api.GradingResult]


@dataclass
class RegradeVerdict:
    """A new score and feedback for one item, or why it could not be regraded."""

    item_id: int
    response_id: int
    attempt_id: int
    version_id: int
    score: float | None = None
    feedback: dict[str, Any] = field(default_factory=dict)
    failure: str = ""


class JobTemplates:
    """Each version's runner job less the answer, built once per chunk and reused."""

    def __init__(self) -> None:
        self._by_version: dict[int, runner_api.GradingJob] = {}

    def job(self, response: Response, job_id: str) -> runner_api.GradingJob:
        if response.params or response.generated_answers:
            return code_job(response, job_id)  # a variant: its own cases and reference
        template = self._by_version.get(response.question_version_id)
        if template is None:
            template = self._by_version[response.question_version_id] = code_job(response, "")
        source = str((response.answer or {}).get("source", ""))
        return dataclasses.replace(template, job_id=job_id, source=source)


def _verdict(item: RegradeItem, response: Response, **outcome: Any) -> RegradeVerdict:
    return RegradeVerdict(
        item_id=item.pk,
        response_id=response.pk,
        attempt_id=response.attempt_id,
        version_id=response.question_version_id,
        **outcome,
    )


def _code(
    item: RegradeItem, response: Response, templates: JobTemplates, grade: Grade
) -> RegradeVerdict:
    try:
        job = templates.job(response, f"regrade-{item.run_id}-{item.pk}")
    except CaseError as error:
        return _verdict(item, response, failure=f"This question cannot be graded: {error}.")
    try:
        result = grade(job)
    except Exception as error:  # noqa: BLE001  (sandbox edge: a crash fails this item only)
        return _verdict(item, response, failure=f"{_RUNNER_FAILED} {error!r}")
    if result.status == runner_api.Status.INTERNAL:
        return _verdict(item, response, failure=result.message or _RUNNER_FAILED)
    score = max(0.0, min(1.0, float(result.score)))
    return _verdict(item, response, score=score, feedback=code_feedback(result.to_dict()))


def _auto(item: RegradeItem, response: Response) -> RegradeVerdict:
    if response.answer is None:
        return _verdict(item, response, score=0.0, feedback={"general": "No answer was given."})
    content = variant_content(
        response.question_version.content, response.params, response.generated_answers
    )
    try:
        verdict = score_answer(content, response.answer)
    except (KeyError, ValueError, TypeError, IndexError) as error:
        return _verdict(item, response, failure=f"The answer does not fit this version: {error!r}")
    return _verdict(item, response, score=verdict.score, feedback=verdict.feedback)


def regrade_verdict(
    item: RegradeItem, response: Response, templates: JobTemplates, grade: Grade
) -> RegradeVerdict:
    """The new score of a choice, numeric, text or code answer on `response.question_version`;
    `grade` grades a code answer's job in this worker's sandbox."""
    if response.question_version.content.get("type") == "code":
        return _code(item, response, templates, grade)
    return _auto(item, response)

"""What a regrade decides for each answer: code answers' new verdicts, viva answers
re-marked, and the score each item finishes with."""

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Case, F, Value, When

from config.locking import for_update
from grading.content import variant_content
from grading.errors import InvalidMark
from grading.models import Response, ResponseStatus
from grading.models.marking import Mark, MarkChange, ScoreChange, ScoreSource
from grading.models.regrade import (
    RegradeItem,
    RegradeItemStatus,
    RegradeMode,
    RegradeRun,
    RegradeStatus,
)
from grading.scoring import UnscorableQuestion, score_answer
from grading.scoring.verdict import clamp
from grading.services.attempts import attempt_refresh_total, response_lock_by_id
from grading.services.code import code_feedback, code_job
from grading.services.marking.marks import mark_snapshot
from grading.services.marking.outcome import mark_score, marking_apply, rubric_of
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
    score = clamp(float(result.score))
    return _verdict(item, response, score=score, feedback=code_feedback(result.to_dict()))


def _auto(item: RegradeItem, response: Response) -> RegradeVerdict:
    if response.answer is None:
        return _verdict(item, response, score=0.0, feedback={"general": "No answer was given."})
    content = variant_content(
        response.question_version.content, response.params, response.generated_answers
    )
    try:
        verdict = score_answer(content, response.answer)
    except UnscorableQuestion as error:
        return _verdict(item, response, failure=f"This question cannot be graded: {error}.")
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


def regrade_change(run: RegradeRun) -> ScoreChange:
    """An unsaved log row naming the run, its mode and the examiner's reason."""
    version = f", version {run.target_version_id}" if run.target_version_id else ""
    return ScoreChange(
        source=ScoreSource.REGRADE, regrade_run=run, reason=f"{run.reason} ({run.mode}{version})"
    )


def regrade_item_finish(
    *, run: RegradeRun, item: RegradeItem, after: float | None, now: datetime
) -> None:
    item.status, item.after = RegradeItemStatus.DONE, after
    item.save(update_fields=["status", "after"])
    regrade_progress(run_id=run.pk, now=now, done=1, changed=int(after != item.before))


def regrade_item_fail(*, run_id: int, item: RegradeItem, message: str, now: datetime) -> None:
    item.status, item.message = RegradeItemStatus.FAILED, message[:2000]
    item.save(update_fields=["status", "message"])
    regrade_progress(run_id=run_id, now=now, done=1, failed=1)


def regrade_score_set(
    *,
    run: RegradeRun,
    item: RegradeItem,
    response: Response,
    score: float,
    feedback: dict[str, Any],
    now: datetime,
) -> None:
    """Store the new score and feedback; log the change (if any) and total the attempt."""
    before = response.score
    response.score, response.status = score, ResponseStatus.GRADED
    response.feedback, response.graded_at = feedback, now
    response.save(update_fields=["score", "status", "feedback", "graded_at"])
    if before != score:
        row = regrade_change(run)
        row.response, row.actor, row.created_at = response, run.created_by, now
        row.before, row.after = before, score
        row.save()
    attempt_refresh_total(attempt=response.attempt, now=now)
    regrade_item_finish(run=run, item=item, after=score, now=now)


def _rescore(run: RegradeRun, item: RegradeItem, response: Response, now: datetime) -> None:
    rubric = rubric_of(response.question_version.content)
    for mark in for_update(Mark).filter(response=response):
        before = mark_snapshot(mark)
        mark.rubric_points, mark.score = mark_score(rubric, mark.levels, mark.adjustment)
        mark.updated_at = now
        mark.save(update_fields=["rubric_points", "score", "updated_at"])
        MarkChange.objects.create(
            mark=mark,
            response=response,
            actor=run.created_by,
            before=before,
            after=mark_snapshot(mark),
            created_at=now,
        )
    marking_apply(response=response, actor=run.created_by, now=now, change=regrade_change(run))
    regrade_item_finish(run=run, item=item, after=response.score, now=now)


def _regrade(run: RegradeRun, item_id: int, response_id: int, now: datetime) -> None:
    response = response_lock_by_id(response_id)
    item = for_update(RegradeItem).get(pk=item_id)
    if item.status != RegradeItemStatus.PENDING:
        return  # already regraded by an earlier delivery of this chunk
    if run.mode == RegradeMode.APPLY and run.target_version is not None:
        response.question_version = run.target_version
        response.save(update_fields=["question_version"])
    _rescore(run, item, response, now)


def regrade_viva(*, run: RegradeRun, item_id: int, response_id: int, now: datetime) -> None:
    """Regrade one viva item of `run` unless done; a mark the new rubric refuses fails it."""
    try:
        with transaction.atomic():
            _regrade(run, item_id, response_id, now)
    except InvalidMark as error:
        with transaction.atomic():
            item = for_update(RegradeItem).get(pk=item_id)
            if item.status == RegradeItemStatus.PENDING:
                regrade_item_fail(run_id=run.pk, item=item, message=error.message, now=now)


# Counters of a regrade run, updated atomically by many workers at once.
def regrade_progress(
    *, run_id: int, now: datetime, done: int = 0, changed: int = 0, failed: int = 0
) -> None:
    """Add to the run's counters in one statement; done once every item is accounted for."""
    # F() reads the row's value before this update, so the new count is F("done") + done.
    finished = When(done__gte=F("total") - done, then=Value(RegradeStatus.DONE))
    RegradeRun.objects.filter(pk=run_id).update(
        done=F("done") + done,
        changed=F("changed") + changed,
        failed=F("failed") + failed,
        status=Case(finished, default=F("status")),
        finished_at=Case(
            When(done__gte=F("total") - done, finished_at__isnull=True, then=Value(now)),
            default=F("finished_at"),
        ),
    )

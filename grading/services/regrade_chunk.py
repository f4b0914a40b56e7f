"""Regrade one chunk of a run: choice/numeric/text now, viva from its marks, code via the runner.

Each item is its own short transaction; code jobs go to the runner once their
item (holding the job id the callback looks for) is committed.
"""

import uuid
from datetime import datetime

from celery import signature
from django.db import transaction

from grading.content import variant_content
from grading.models import Response
from grading.models.marking import Mark, MarkChange
from grading.models.regrade import RegradeItem, RegradeItemStatus, RegradeMode, RegradeRun
from grading.scoring import score_answer
from grading.services.code_jobs import code_job
from grading.services.marking import mark_snapshot
from grading.services.marking_apply import marking_apply
from grading.services.marking_errors import InvalidMark
from grading.services.marking_rubric import mark_score, rubric_of
from grading.services.regrade_score import (
    regrade_change,
    regrade_item_fail,
    regrade_item_finish,
    regrade_score_set,
    response_lock,
)
from runner import api as runner_api

RESULT_TASK = "grading.apply_regrade_result"


class ItemFailed(Exception):
    """This answer cannot be regraded (e.g. it no longer fits the new version)."""


def _regrade_auto(run: RegradeRun, item: RegradeItem, response: Response, now: datetime) -> None:
    content = variant_content(
        response.question_version.content, response.params, response.generated_answers
    )
    if response.answer is None:
        score, feedback = 0.0, {"general": "No answer was given."}
    else:
        try:
            verdict = score_answer(content, response.answer)
        except (KeyError, ValueError, TypeError, IndexError) as error:
            raise ItemFailed(f"The answer does not fit this version: {error!r}") from error
        score, feedback = verdict.score, verdict.feedback
    regrade_score_set(run=run, item=item, response=response, score=score,
                      feedback=feedback, now=now)  # fmt: skip


def _regrade_viva(run: RegradeRun, item: RegradeItem, response: Response, now: datetime) -> None:
    """Re-score every mark on the version's rubric (levels kept), then re-apply the rule."""
    rubric = rubric_of(response.question_version.content)
    for mark in Mark.objects.select_for_update().filter(response=response):
        before = mark_snapshot(mark)
        mark.rubric_points, mark.score = mark_score(rubric, mark.levels, mark.adjustment)
        mark.updated_at = now
        mark.save(update_fields=["rubric_points", "score", "updated_at"])
        MarkChange.objects.create(
            mark=mark, response=response, actor=run.created_by,
            before=before, after=mark_snapshot(mark), created_at=now,
        )  # fmt: skip
    marking_apply(response=response, actor=run.created_by, now=now, change=regrade_change(run))
    regrade_item_finish(run=run, item=item, after=response.score, now=now)


def _process(run: RegradeRun, item_id: int, now: datetime) -> runner_api.GradingJob | None:
    response_id = RegradeItem.objects.values_list("response_id", flat=True).get(pk=item_id)
    response = response_lock(response_id)
    item = RegradeItem.objects.select_for_update().get(pk=item_id)
    if item.status != RegradeItemStatus.PENDING or item.job_id:
        return None
    if run.mode == RegradeMode.APPLY and run.target_version is not None:
        response.question_version = run.target_version
        response.save(update_fields=["question_version"])
    qtype = response.question_version.content.get("type")
    if qtype == "code":
        item.job_id = f"regrade-{item.pk}-{uuid.uuid4().hex[:12]}"
        item.save(update_fields=["job_id"])
        return code_job(response, item.job_id)
    if qtype == "viva":
        _regrade_viva(run, item, response, now)
    else:
        _regrade_auto(run, item, response, now)
    return None


def _process_or_fail(run: RegradeRun, item_id: int, now: datetime) -> runner_api.GradingJob | None:
    try:
        with transaction.atomic():
            return _process(run, item_id, now)
    except (ItemFailed, InvalidMark) as error:
        with transaction.atomic():
            item = RegradeItem.objects.select_for_update().get(pk=item_id)
            if item.status == RegradeItemStatus.PENDING:
                message = getattr(error, "message", str(error))
                regrade_item_fail(run_id=run.pk, item=item, message=message, now=now)
        return None


def regrade_chunk(*, run_id: int, item_ids: list[int], now: datetime) -> int:
    """Regrade the given items of a run; returns how many code jobs went to the runner."""
    run = RegradeRun.objects.select_related("created_by", "target_version").get(pk=run_id)
    jobs = [job for item_id in item_ids if (job := _process_or_fail(run, item_id, now))]
    callback = signature(RESULT_TASK, queue="default")
    for job in jobs:
        runner_api.submit_grading(job, callback=callback)
    return len(jobs)

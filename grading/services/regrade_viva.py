"""Regrade one viva answer: re-score its marks on the version's rubric, then re-apply the rule.

Viva answers are rare in a run and go through the marking service, so each is its own
short transaction rather than part of the chunk's bulk write.
"""

from datetime import datetime

from django.db import transaction

from grading.errors import InvalidMark
from grading.models import Response
from grading.models.marking import Mark, MarkChange
from grading.models.regrade import RegradeItem, RegradeItemStatus, RegradeMode, RegradeRun
from grading.services.attempts import response_lock_by_id
from grading.services.marking import mark_snapshot
from grading.services.marking_apply import marking_apply
from grading.services.marking_rubric import mark_score, rubric_of
from grading.services.regrade_score import (
    regrade_change,
    regrade_item_fail,
    regrade_item_finish,
)


def _rescore(run: RegradeRun, item: RegradeItem, response: Response, now: datetime) -> None:
    rubric = rubric_of(response.question_version.content)
    for mark in Mark.objects.select_for_update().filter(response=response):
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
    item = RegradeItem.objects.select_for_update().get(pk=item_id)
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
            item = RegradeItem.objects.select_for_update().get(pk=item_id)
            if item.status == RegradeItemStatus.PENDING:
                regrade_item_fail(run_id=run.pk, item=item, message=error.message, now=now)

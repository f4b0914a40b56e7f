"""Regrade one chunk of a run in this worker: grade every answer, then write them all at once.

Code answers are graded in-process by the `grade` the task hands in (the worker's own
sandbox), which is why code chunks run on the `cpu` (or `gpu`) queue. The chunk's
results, log rows and progress are then stored in a single transaction.
"""

import time
from datetime import datetime

from grading.models.regrade import RegradeItem, RegradeItemStatus, RegradeMode, RegradeRun
from grading.services.regrade_verdicts import (
    Grade,
    JobTemplates,
    RegradeVerdict,
    regrade_verdict,
)
from grading.services.regrade_viva import regrade_viva
from grading.services.regrade_write import regrade_verdicts_write
from quizbank.models import QuestionVersion

# Grading stops after this long and hands the rest back, so a chunk of slow answers
# stays well inside the task's time limit instead of being killed mid-way.
CHUNK_BUDGET_S = 120.0


def _pending_items(run: RegradeRun, item_ids: list[int]) -> list[RegradeItem]:
    """The chunk's items not yet regraded, each response carrying the version to grade on."""
    items = list(
        RegradeItem.objects.filter(run=run, pk__in=item_ids, status=RegradeItemStatus.PENDING)
        .select_related("response")
        .order_by("pk")
    )
    target = run.target_version if run.mode == RegradeMode.APPLY else None
    versions: dict[int, QuestionVersion] = {}
    if target is None:
        versions = QuestionVersion.objects.in_bulk({i.response.question_version_id for i in items})
    for item in items:
        item.response.question_version = target or versions[item.response.question_version_id]
    return items


def regrade_chunk(
    *,
    run_id: int,
    item_ids: list[int],
    now: datetime,
    grade: Grade,
    budget_s: float = CHUNK_BUDGET_S,
) -> list[int]:
    """Regrade the pending items among `item_ids`; returns those left over once the time
    budget ran out (for another task). Items already regraded are skipped."""
    run = RegradeRun.objects.select_related("created_by", "target_version").get(pk=run_id)
    deadline = time.monotonic() + budget_s
    templates, verdicts, left = JobTemplates(), list[RegradeVerdict](), list[int]()
    for item in _pending_items(run, item_ids):
        if time.monotonic() > deadline:
            left.append(item.pk)
        elif item.response.question_version.content.get("type") == "viva":
            regrade_viva(run=run, item_id=item.pk, response_id=item.response_id, now=now)
        else:
            verdicts.append(regrade_verdict(item, item.response, templates, grade))
    regrade_verdicts_write(run=run, verdicts=verdicts, now=now)
    return left

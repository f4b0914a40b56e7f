"""Starting a bulk regrade and running it: dispatch in chunks to the workers' queues,
and progress."""

import time
from collections import defaultdict
from datetime import datetime

from celery import group, signature
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.db.models.fields.json import KeyTextTransform

from config.locking import for_update
from grading.errors import NothingToRegrade, RegradeInProgress
from grading.models import AttemptStatus, Response, ResponseStatus
from grading.models.regrade import (
    RegradeItem,
    RegradeItemStatus,
    RegradeMode,
    RegradeRun,
    RegradeStatus,
)
from grading.services.regrade.verdicts import (
    Grade,
    JobTemplates,
    RegradeVerdict,
    regrade_progress,
    regrade_verdict,
    regrade_viva,
)
from grading.services.regrade.writes import regrade_verdicts_write
from quizbank.models import Question, QuestionVersion, Quiz
from runner import api as runner_api

DISPATCH_TASK = "grading.regrade_dispatch"
# Code answers still with the runner, and viva answers not yet marked, have no grade to redo.
_REGRADABLE = (ResponseStatus.GRADED, ResponseStatus.ERROR)


def regrade_affected(quiz: Quiz, question: Question) -> QuerySet[Response]:
    """Graded (or failed) answers to any version of `question` in submitted attempts of `quiz`."""
    return Response.objects.filter(
        attempt__quiz=quiz,
        attempt__status__in=[AttemptStatus.SUBMITTED, AttemptStatus.GRADED],
        question_version__question=question,
        status__in=_REGRADABLE,
    )


def regrade_run_start(
    *, quiz: Quiz, question: Question, mode: str, reason: str, actor: User, now: datetime
) -> RegradeRun:
    """Create the run and its items; the workers start on it once this commits."""
    with transaction.atomic():
        # Locked, so that two clicks (or two examiners) at once start one run, not two.
        quiz = for_update(Quiz).get(pk=quiz.pk)
        unfinished = RegradeRun.objects.filter(
            quiz=quiz, question=question, status__in=[RegradeStatus.PENDING, RegradeStatus.RUNNING]
        ).first()
        if unfinished is not None:
            raise RegradeInProgress(
                f"Regrade run {unfinished.pk} of this question is still {unfinished.status}; "
                "wait for it to finish.",
                fields={"run": [str(unfinished.pk)]},
            )
        rows = list(regrade_affected(quiz, question).values_list("pk", "score"))
        if not rows:
            raise NothingToRegrade("No graded answer to this question in this quiz.")
        run = RegradeRun.objects.create(
            quiz=quiz,
            question=question,
            mode=mode,
            reason=reason,
            created_by=actor,
            target_version_id=question.current_version_id if mode == RegradeMode.APPLY else None,
            total=len(rows),
            created_at=now,
        )
        RegradeItem.objects.bulk_create(
            RegradeItem(run=run, response_id=pk, before=score) for pk, score in rows
        )
        task = signature(DISPATCH_TASK, args=(run.pk,), queue="default")
        transaction.on_commit(task.delay)
        return run


CHUNK_TASK = "grading.regrade_chunk"
# About 0.5 s of grading per chunk: small enough that two workers finish together.
CHUNK_SIZE = 20


def _lane(qtype: str | None, device: str | None) -> str:
    if qtype != "code":
        return "default"
    try:
        return runner_api.queue_for(runner_api.Device(device or "cpu"))
    except ValueError:
        return "cpu"  # an unknown device fails in the sandbox with a clear message


def regrade_lanes(run: RegradeRun) -> dict[str, list[int]]:
    """Pending item ids of `run` by the queue their chunks go to (`default`, `cpu`, `gpu`)."""
    content = "response__question_version__content"
    rows = RegradeItem.objects.filter(run=run, status=RegradeItemStatus.PENDING, job_id="")
    if run.mode == RegradeMode.APPLY and run.target_version is not None:
        target = run.target_version.content
        lane = _lane(target.get("type"), target.get("device"))
        return {lane: list(rows.order_by("pk").values_list("pk", flat=True))}
    lanes: dict[str, list[int]] = defaultdict(list)
    rows = rows.annotate(
        qtype=KeyTextTransform("type", content), device=KeyTextTransform("device", content)
    )
    for pk, qtype, device in rows.order_by("pk").values_list("pk", "qtype", "device"):
        lanes[_lane(qtype, device)].append(pk)
    return lanes


def regrade_dispatch(*, run_id: int, now: datetime, chunk_size: int = CHUNK_SIZE) -> int:
    """Send the run's pending items in chunks; returns the number of chunks."""
    RegradeRun.objects.filter(pk=run_id, status=RegradeStatus.PENDING).update(
        status=RegradeStatus.RUNNING
    )
    run = RegradeRun.objects.select_related("target_version").get(pk=run_id)
    chunks = [
        (queue, ids[i : i + chunk_size])
        for queue, ids in regrade_lanes(run).items()
        for i in range(0, len(ids), chunk_size)
    ]
    if not chunks:
        regrade_progress(run_id=run_id, now=now)
        return 0
    group(
        signature(CHUNK_TASK, args=(run_id, chunk), kwargs={"queue": queue}, queue=queue)
        for queue, chunk in chunks
    ).delay()
    return len(chunks)


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
    run = RegradeRun.objects.select_related("created_by", "quiz", "target_version").get(pk=run_id)
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

"""Split a regrade run into chunks, one queue per kind of work, and hand them to the workers.

Code answers are graded inside the chunk task, so their chunks go to the runner's
queue for the version's device (`cpu`, or `gpu` for cuda); other answers need no
sandbox and go to `default`.
"""

from collections import defaultdict
from datetime import datetime

from celery import group, signature
from django.db.models.fields.json import KeyTextTransform

from grading.models.regrade import (
    RegradeItem,
    RegradeItemStatus,
    RegradeMode,
    RegradeRun,
    RegradeStatus,
)
from grading.services.regrade_progress import regrade_progress
from runner import api as runner_api

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

"""Split a regrade run into chunks and hand them to the workers as one Celery group."""

from datetime import datetime

from celery import group, signature

from grading.models.regrade import RegradeItem, RegradeItemStatus, RegradeRun, RegradeStatus
from grading.services.regrade_progress import regrade_progress

CHUNK_TASK = "grading.regrade_chunk"
CHUNK_SIZE = 50


def regrade_dispatch(*, run_id: int, now: datetime, chunk_size: int = CHUNK_SIZE) -> int:
    """Send the run's pending items in chunks; returns the number of chunks."""
    RegradeRun.objects.filter(pk=run_id, status=RegradeStatus.PENDING).update(
        status=RegradeStatus.RUNNING
    )
    ids = list(
        RegradeItem.objects.filter(run_id=run_id, status=RegradeItemStatus.PENDING, job_id="")
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    chunks = [ids[i : i + chunk_size] for i in range(0, len(ids), chunk_size)]
    if not chunks:
        regrade_progress(run_id=run_id, now=now)
        return 0
    group(signature(CHUNK_TASK, args=(run_id, chunk), queue="default") for chunk in chunks).delay()
    return len(chunks)

"""Celery entry points of the examiner side: bulk regrade runs and their code results."""

from dataclasses import asdict, is_dataclass
from typing import Any

from celery import shared_task
from django.utils import timezone

from grading.services.regrade_chunk import regrade_chunk
from grading.services.regrade_dispatch import regrade_dispatch
from grading.services.regrade_result import regrade_result_apply


@shared_task(name="grading.regrade_dispatch", acks_late=True, ignore_result=True)
def regrade_dispatch_task(run_id: int) -> int:
    """Split a run into chunks and send them to the workers as a group."""
    return regrade_dispatch(run_id=run_id, now=timezone.now())


# Above the chunk's own grading budget (120 s) plus one slow answer.
@shared_task(name="grading.regrade_chunk", acks_late=True, ignore_result=True,
             soft_time_limit=240, time_limit=270)  # fmt: skip
def regrade_chunk_task(run_id: int, item_ids: list[int], queue: str = "default") -> int:
    """Regrade a chunk in this worker; what the time budget left goes out as a new chunk."""
    left = regrade_chunk(run_id=run_id, item_ids=item_ids, now=timezone.now())
    if left:
        regrade_chunk_task.apply_async(args=(run_id, left), kwargs={"queue": queue}, queue=queue)
    return len(item_ids) - len(left)


@shared_task(name="grading.apply_regrade_result", acks_late=True, ignore_result=True)
def apply_regrade_result(result: Any) -> bool:
    """Callback for code regrades queued through the runner before chunks graded in-process."""
    payload = asdict(result) if is_dataclass(result) and not isinstance(result, type) else result
    return regrade_result_apply(payload=dict(payload), now=timezone.now())

"""Services for JobRecord: claim a delivery, store its result once (idempotent by job id)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from config.commits import commit_without_waiting_for_disk
from runner.models import JobRecord, JobState

# A warm worker answers a try-it run in tens of milliseconds: poll often at first, then back off.
_FIRST_PAUSE_S = 0.01
_LONGEST_PAUSE_S = 0.2


# A job delivered this often never finished: each delivery stopped its worker (a poison pill).
MAX_DELIVERIES = 3


def job_record_claim(
    *, job_id: str, kind: str, poisoned: Callable[[int], dict[str, Any]]
) -> dict[str, Any] | None:
    """Count a delivery; the stored result if the job already finished, else None.

    Past MAX_DELIVERIES the job is finished now with `poisoned(deliveries)` as its result
    (and that is returned), so a job that kills its worker is never run again.
    """
    claimed_at = timezone.now()
    try:
        # A first delivery, the usual case, is one insert.
        with transaction.atomic():
            # Lost only with PostgreSQL itself: the delivery is then counted one short.
            commit_without_waiting_for_disk()
            JobRecord.objects.create(job_id=job_id, kind=kind, deliveries=1, claimed_at=claimed_at)
        return None
    except IntegrityError:
        pass  # delivered before: count this delivery on its record
    with transaction.atomic():
        commit_without_waiting_for_disk()
        record, _ = JobRecord.objects.select_for_update().get_or_create(
            job_id=job_id, defaults={"kind": kind}
        )
        record.deliveries += 1
        record.claimed_at = claimed_at
        record.save(update_fields=["deliveries", "claimed_at"])
        if record.state == JobState.FINISHED:
            stored: dict[str, Any] = record.result
            return stored
        if record.deliveries <= MAX_DELIVERIES:
            return None
    return job_record_finish(job_id=job_id, kind=kind, result=poisoned(record.deliveries - 1))


def job_record_finish(
    *, job_id: str, kind: str, result: dict[str, Any], score: float | None = None
) -> dict[str, Any]:
    """Store the result unless another delivery got there first; return the stored one."""
    with transaction.atomic():
        # Lost only with PostgreSQL itself, and then the job runs again (the caller's sweeper).
        commit_without_waiting_for_disk()
        fields = {
            "state": JobState.FINISHED,
            "status": str(result.get("status", "")),
            "score": score,
            "result": result,
            "finished_at": timezone.now(),
        }
        running = JobRecord.objects.filter(job_id=job_id).exclude(state=JobState.FINISHED)
        if running.update(**fields):
            return result
        # Another delivery finished it first (its result wins), or no claim was recorded.
        record, created = JobRecord.objects.select_for_update().get_or_create(
            job_id=job_id, defaults={"kind": kind, **fields}
        )
        if not created and record.state != JobState.FINISHED:  # claimed since the update
            for name, value in fields.items():
                setattr(record, name, value)
            record.save()
        stored: dict[str, Any] = record.result
        return stored


def job_record_wait(*, job_id: str, timeout_s: float) -> dict[str, Any] | None:
    """The stored result of `job_id` once a worker finished it, or None after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    pause = _FIRST_PAUSE_S
    finished = JobRecord.objects.filter(job_id=job_id, state=JobState.FINISHED)
    while True:
        result: dict[str, Any] | None = finished.values_list("result", flat=True).first()
        remaining = deadline - time.monotonic()
        if result is not None or remaining <= 0:
            return result
        time.sleep(min(pause, remaining))
        pause = min(2 * pause, _LONGEST_PAUSE_S)


Progress = tuple[datetime | None, dict[str, Any] | None, datetime | None]


def job_record_progress(*, job_id: str) -> Progress:
    """When a worker last claimed `job_id`, its stored result and when it finished (if it did)."""
    return job_records_progress(job_ids=[job_id])[job_id]


def job_records_progress(*, job_ids: list[str]) -> dict[str, Progress]:
    """`job_record_progress` of each job, in one query."""
    records = {record.job_id: record for record in JobRecord.objects.filter(job_id__in=job_ids)}
    progress: dict[str, Progress] = {}
    for job_id in job_ids:
        record = records.get(job_id)
        if record is None or record.state != JobState.FINISHED:
            progress[job_id] = ((record.claimed_at if record else None), None, None)
        else:
            progress[job_id] = (record.claimed_at, record.result, record.finished_at)
    return progress

"""Counters of a regrade run, updated atomically by many workers at once."""

from datetime import datetime

from django.db.models import F

from grading.models.regrade import RegradeRun, RegradeStatus


def regrade_progress(
    *, run_id: int, now: datetime, done: int = 0, changed: int = 0, failed: int = 0
) -> None:
    """Add to the run's counters; the run is done once every item is accounted for."""
    if done or changed or failed:
        RegradeRun.objects.filter(pk=run_id).update(
            done=F("done") + done, changed=F("changed") + changed, failed=F("failed") + failed
        )
    RegradeRun.objects.filter(pk=run_id, done__gte=F("total")).exclude(
        status=RegradeStatus.DONE
    ).update(status=RegradeStatus.DONE, finished_at=now)

"""Counters of a regrade run, updated atomically by many workers at once."""

from datetime import datetime

from django.db.models import Case, F, Value, When

from grading.models.regrade import RegradeRun, RegradeStatus


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

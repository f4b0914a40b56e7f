"""Write a regraded score to a response, log it and count it on the run."""

from datetime import datetime
from typing import Any

from grading.models import Response, ResponseStatus
from grading.models.marking import ScoreChange, ScoreSource
from grading.models.regrade import RegradeItem, RegradeItemStatus, RegradeRun
from grading.services.attempts import attempt_refresh_total
from grading.services.regrade_progress import regrade_progress


def regrade_change(run: RegradeRun) -> ScoreChange:
    """An unsaved log row naming the run, its mode and the examiner's reason."""
    version = f", version {run.target_version_id}" if run.target_version_id else ""
    return ScoreChange(
        source=ScoreSource.REGRADE, regrade_run=run, reason=f"{run.reason} ({run.mode}{version})"
    )


def regrade_item_finish(
    *, run: RegradeRun, item: RegradeItem, after: float | None, now: datetime
) -> None:
    item.status, item.after = RegradeItemStatus.DONE, after
    item.save(update_fields=["status", "after"])
    regrade_progress(run_id=run.pk, now=now, done=1, changed=int(after != item.before))


def regrade_item_fail(*, run_id: int, item: RegradeItem, message: str, now: datetime) -> None:
    item.status, item.message = RegradeItemStatus.FAILED, message[:2000]
    item.save(update_fields=["status", "message"])
    regrade_progress(run_id=run_id, now=now, done=1, failed=1)


def regrade_score_set(
    *,
    run: RegradeRun,
    item: RegradeItem,
    response: Response,
    score: float,
    feedback: dict[str, Any],
    now: datetime,
) -> None:
    """Store the new score and feedback; log the change (if any) and total the attempt."""
    before = response.score
    response.score, response.status = score, ResponseStatus.GRADED
    response.feedback, response.graded_at = feedback, now
    response.save(update_fields=["score", "status", "feedback", "graded_at"])
    if before != score:
        row = regrade_change(run)
        row.response, row.actor, row.created_at = response, run.created_by, now
        row.before, row.after = before, score
        row.save()
    attempt_refresh_total(attempt=response.attempt, now=now)
    regrade_item_finish(run=run, item=item, after=score, now=now)

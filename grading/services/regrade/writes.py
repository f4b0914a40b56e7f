"""Store a chunk's regrade verdicts in one transaction with a fixed, small number of queries."""

from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction

from config.locking import for_update
from grading.events import scores_regraded
from grading.models import Attempt, Response, ResponseStatus
from grading.models.marking import ScoreChange
from grading.models.regrade import RegradeItem, RegradeItemStatus, RegradeRun
from grading.services.attempts import attempts_refresh_totals
from grading.services.regrade.verdicts import RegradeVerdict, regrade_change, regrade_progress

_RESPONSE_FIELDS = ["score", "status", "feedback", "graded_at", "question_version"]


@dataclass
class _Batch:
    responses: list[Response] = field(default_factory=list)
    items: list[RegradeItem] = field(default_factory=list)
    changes: list[ScoreChange] = field(default_factory=list)
    attempt_ids: set[int] = field(default_factory=set)
    changed: int = 0
    failed: int = 0


def _log_row(
    run: RegradeRun, response: Response, before: float | None, now: datetime
) -> ScoreChange:
    row = regrade_change(run)
    row.response, row.actor, row.created_at = response, run.created_by, now
    row.before, row.after = before, response.score
    return row


def _add(
    batch: _Batch,
    run: RegradeRun,
    verdict: RegradeVerdict,
    item: RegradeItem,
    response: Response,
    now: datetime,
) -> None:
    batch.items.append(item)
    if verdict.failure:
        item.status, item.message = RegradeItemStatus.FAILED, verdict.failure[:2000]
        batch.failed += 1
        return
    before = response.score
    response.score, response.status = verdict.score, ResponseStatus.GRADED
    response.feedback, response.graded_at = verdict.feedback, now
    response.question_version_id = verdict.version_id
    batch.responses.append(response)
    batch.attempt_ids.add(response.attempt_id)
    if before != verdict.score:
        batch.changes.append(_log_row(run, response, before, now))
    item.status, item.after = RegradeItemStatus.DONE, verdict.score
    batch.changed += int(verdict.score != item.before)


def regrade_verdicts_write(
    *, run: RegradeRun, verdicts: list[RegradeVerdict], now: datetime
) -> int:
    """Apply the verdicts whose items are still pending (a redelivered chunk applies
    nothing twice), log score changes, re-total attempts and count progress; how many applied."""
    if not verdicts:
        return 0
    with transaction.atomic():
        # Attempts, then responses, then items: the lock order of submit and the callbacks.
        attempts = list(
            for_update(Attempt).filter(pk__in={v.attempt_id for v in verdicts}).order_by("pk")
        )
        responses = for_update(Response).filter(pk__in=[v.response_id for v in verdicts])
        fields = ("pk", "attempt_id", "position", "score")
        by_pk = {r.pk: r for r in responses.only(*fields).order_by("pk")}
        items = for_update(RegradeItem).filter(
            run=run, pk__in=[v.item_id for v in verdicts], status=RegradeItemStatus.PENDING
        )
        pending = {item.pk: item for item in items.order_by("pk")}
        batch = _Batch()
        for verdict in verdicts:
            if verdict.item_id in pending and verdict.response_id in by_pk:
                _add(batch, run, verdict, pending[verdict.item_id], by_pk[verdict.response_id], now)
        _save(batch, attempts, now)
        _announce(run, batch, attempts)
        if batch.items:
            regrade_progress(
                run_id=run.pk,
                now=now,
                done=len(batch.items),
                changed=batch.changed,
                failed=batch.failed,
            )
    return len(batch.items)


def _save(batch: _Batch, attempts: list[Attempt], now: datetime) -> None:
    if batch.responses:
        Response.objects.bulk_update(batch.responses, _RESPONSE_FIELDS)
    if batch.items:
        RegradeItem.objects.bulk_update(batch.items, ["status", "after", "message"])
    if batch.changes:
        ScoreChange.objects.bulk_create(batch.changes)
    touched = [attempt for attempt in attempts if attempt.pk in batch.attempt_ids]
    attempts_refresh_totals(attempts=touched, now=now)


def _announce(run: RegradeRun, batch: _Batch, attempts: list[Attempt]) -> None:
    if not batch.changes:
        return
    changed = {change.response.attempt_id for change in batch.changes}
    touched = [attempt for attempt in attempts if attempt.pk in changed]
    scores_regraded.send(sender=RegradeRun, run=run, changes=batch.changes, attempts=touched)

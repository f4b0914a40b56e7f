"""Recompute an attempt's total from its responses and mark it graded when complete."""

from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal

from grading.models import Attempt, AttemptStatus, Response, ResponseStatus

PENDING = frozenset({ResponseStatus.QUEUED, ResponseStatus.RUNNING, ResponseStatus.NEEDS_MARKING})
_QUANTUM = Decimal("0.001")
_TOTAL_FIELDS = ["score", "max_score", "status", "graded_at"]


def _total(attempt: Attempt, responses: Iterable[Response], now: datetime) -> None:
    responses = list(responses)
    total = sum(
        (Decimal(str(r.score)) * r.points for r in responses if r.score is not None),
        Decimal(0),
    )
    attempt.score = total.quantize(_QUANTUM)
    attempt.max_score = sum((r.points for r in responses), Decimal(0))
    pending = any(r.status in PENDING for r in responses)
    if attempt.status != AttemptStatus.OPEN:
        attempt.status = AttemptStatus.SUBMITTED if pending else AttemptStatus.GRADED
        attempt.graded_at = None if pending else (attempt.graded_at or now)


def attempt_refresh_total(*, attempt: Attempt, now: datetime) -> Attempt:
    """Sum of score × points; the attempt is graded once nothing is pending."""
    _total(attempt, Response.objects.filter(attempt=attempt).only("status", "score", "points"), now)
    attempt.save(update_fields=_TOTAL_FIELDS)
    return attempt


def attempts_refresh_totals(*, attempts: list[Attempt], now: datetime) -> None:
    """`attempt_refresh_total` for many (already locked) attempts in two queries."""
    if not attempts:
        return
    rows: dict[int, list[Response]] = {attempt.pk: [] for attempt in attempts}
    responses = Response.objects.filter(attempt_id__in=list(rows)).only(
        "attempt_id", "status", "score", "points"
    )
    for response in responses:
        rows[response.attempt_id].append(response)
    for attempt in attempts:
        _total(attempt, rows[attempt.pk], now)
    Attempt.objects.bulk_update(attempts, _TOTAL_FIELDS)

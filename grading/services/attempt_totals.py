"""Recompute an attempt's total from its responses and mark it graded when complete."""

from datetime import datetime
from decimal import Decimal

from grading.models import Attempt, AttemptStatus, Response, ResponseStatus

PENDING = frozenset({ResponseStatus.QUEUED, ResponseStatus.RUNNING, ResponseStatus.NEEDS_MARKING})
_QUANTUM = Decimal("0.001")


def attempt_refresh_total(*, attempt: Attempt, now: datetime) -> Attempt:
    """Sum of score × points; the attempt is graded once nothing is pending."""
    responses = list(Response.objects.filter(attempt=attempt).only("status", "score", "points"))
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
    attempt.save(update_fields=["score", "max_score", "status", "graded_at"])
    return attempt

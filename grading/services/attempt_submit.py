"""Submit an attempt (by the student, or automatically at its deadline), exactly once."""

from datetime import datetime

from django.db import transaction

from grading.models import Attempt, AttemptStatus
from grading.services.attempt_clock import attempt_is_overdue
from grading.services.attempt_totals import attempt_refresh_total
from grading.services.response_grade import response_grade


def attempt_submit(*, attempt: Attempt, now: datetime, idempotency_key: str = "") -> Attempt:
    """Close the attempt and grade what was saved; a second call returns the first result.
    It counts as automatic when its time (and grace) had run out, decided on the locked row."""
    with transaction.atomic():
        locked = (
            Attempt.objects.select_for_update(of=("self",))
            .select_related("quiz")
            .get(pk=attempt.pk)
        )
        if locked.status != AttemptStatus.OPEN:
            return locked
        # A student's late submit is the same as the automatic one: what was saved counts.
        late = attempt_is_overdue(locked, now)
        locked.status = AttemptStatus.SUBMITTED
        locked.submitted_at = now
        locked.auto_submitted = late
        locked.idempotency_key = idempotency_key[:100]
        locked.save(update_fields=["status", "submitted_at", "auto_submitted", "idempotency_key"])
        for response in locked.responses.select_related("question_version").order_by("position"):
            response_grade(response=response, now=now)
        return attempt_refresh_total(attempt=locked, now=now)


def attempt_close_if_overdue(*, attempt: Attempt, now: datetime) -> Attempt:
    """Submit an open attempt whose time (and grace) ran out; otherwise return it as is."""
    if attempt_is_overdue(attempt, now):
        return attempt_submit(attempt=attempt, now=now)
    return attempt


def attempts_close_overdue(*, now: datetime, limit: int = 500) -> int:
    """Auto-submit every overdue open attempt (the beat task); returns how many closed."""
    candidates = Attempt.objects.filter(status=AttemptStatus.OPEN, deadline__lt=now)
    closed = 0
    for attempt in candidates.select_related("quiz").order_by("deadline")[:limit]:
        if attempt_is_overdue(attempt, now):
            attempt_submit(attempt=attempt, now=now)
            closed += 1
    return closed

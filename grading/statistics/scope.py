"""Which attempts the statistics count: all of them, or each student's first.

The scope is chosen over every attempt, whatever its state, so a student whose
first attempt still waits for marking (or is still in progress) is not
represented by a retake: that student's first attempt is the one in scope, and
it joins the item analysis once graded.
"""

from django.db import models

from grading.statistics.collect import AttemptRow


class AttemptScope(models.TextChoices):
    ALL = "all", "Every attempt"
    FIRST = "first", "Each student's first attempt in time, whatever its state"


def _started(row: AttemptRow) -> tuple[float, int]:
    return (row.started_at.timestamp() if row.started_at else 0.0, row.number)


def first_per_student(attempts: dict[int, AttemptRow]) -> dict[int, AttemptRow]:
    """Keep each student's earliest attempt (by start time, then number) among `attempts`."""
    first: dict[int, int] = {}
    for pk, row in attempts.items():
        kept = first.get(row.user_id)
        if kept is None or _started(row) < _started(attempts[kept]):
            first[row.user_id] = pk
    return {pk: attempts[pk] for pk in first.values()}


def in_scope(attempts: dict[int, AttemptRow], scope: str) -> dict[int, AttemptRow]:
    """The attempts `scope` counts (see `AttemptScope`)."""
    return first_per_student(attempts) if scope == AttemptScope.FIRST else attempts

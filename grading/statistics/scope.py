"""Which graded attempts item analysis counts: all of them, or each student's first."""

from django.db import models

from grading.statistics.collect import AttemptRow


class AttemptScope(models.TextChoices):
    ALL = "all", "Every graded attempt"
    FIRST = "first", "Each student's first graded attempt"


def first_per_student(attempts: dict[int, AttemptRow]) -> dict[int, AttemptRow]:
    """Keep only the lowest-numbered attempt of each student among `attempts`."""
    first: dict[int, tuple[int, int]] = {}
    for pk, row in attempts.items():
        kept = first.get(row.user_id)
        if kept is None or row.number < kept[0]:
            first[row.user_id] = (row.number, pk)
    return {pk: attempts[pk] for _, pk in first.values()}


def in_scope(attempts: dict[int, AttemptRow], scope: str) -> dict[int, AttemptRow]:
    """The attempts `scope` counts (see `AttemptScope`)."""
    return first_per_student(attempts) if scope == AttemptScope.FIRST else attempts

"""The server's clock for an attempt: when answers stop being accepted."""

from datetime import datetime

from grading.models import Attempt, AttemptStatus


def answers_close_at(attempt: Attempt) -> datetime | None:
    """The deadline plus the quiz's grace period; None for an untimed attempt."""
    if attempt.deadline is None:
        return None
    return attempt.deadline + attempt.quiz.grace_period


def attempt_is_overdue(attempt: Attempt, now: datetime) -> bool:
    """An open attempt whose deadline and grace period have both passed."""
    closes = answers_close_at(attempt)
    return attempt.status == AttemptStatus.OPEN and closes is not None and now > closes

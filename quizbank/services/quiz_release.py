"""Release a quiz's scores and feedback to its students."""

from datetime import datetime

from quizbank.models import Quiz


def quiz_release(*, quiz: Quiz, now: datetime) -> Quiz:
    """Mark the quiz released (idempotent: the first release time is kept)."""
    if quiz.released_at is None:
        quiz.released_at = now
        quiz.save(update_fields=["released_at"])
    return quiz


def quiz_withdraw_release(*, quiz: Quiz) -> Quiz:
    """Hide released results again (e.g. a release made by mistake)."""
    if quiz.released_at is not None:
        quiz.released_at = None
        quiz.save(update_fields=["released_at"])
    return quiz

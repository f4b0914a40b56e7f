"""What the student dashboard shows: quizzes of the student's courses that are open or
still to open (window, attempts left, an open attempt to resume) and past attempts with
their scores where the release rules (grading.selectors) let the student see them."""

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from grading.models import Attempt, AttemptStatus
from grading.selectors import attempt_final_score, attempt_released
from quizbank.access import AnyUser, courses_for, user_id
from quizbank.models import Quiz, Role


@dataclass(frozen=True)
class QuizRow:
    quiz: Quiz
    state: str  # "open" or "upcoming"
    used: int
    attempts_left: int | None  # None: unlimited
    open_attempt: int | None


@dataclass(frozen=True)
class PastAttempt:
    attempt: Attempt
    released: bool
    pending: bool
    score: Decimal | None


def _state(quiz: Quiz, now: datetime) -> str | None:
    if quiz.closes_at is not None and now >= quiz.closes_at:
        return None
    return "upcoming" if quiz.opens_at is not None and now < quiz.opens_at else "open"


def _quiz_row(quiz: Quiz, attempts: list[Attempt], now: datetime) -> QuizRow | None:
    state = _state(quiz, now)
    mine = [a for a in attempts if a.quiz_id == quiz.pk]
    open_attempt = next((a.pk for a in mine if a.status == AttemptStatus.OPEN), None)
    if state is None and open_attempt is None:
        return None
    left = max(0, quiz.attempts_allowed - len(mine)) if quiz.attempts_allowed else None
    return QuizRow(quiz, state or "open", len(mine), left, open_attempt)


def _past(attempt: Attempt, now: datetime) -> PastAttempt:
    released = attempt_released(attempt, now)
    pending = attempt.status == AttemptStatus.SUBMITTED
    score = attempt_final_score(attempt) if released and not pending else None
    return PastAttempt(attempt, released, pending, score)


def student_dashboard(user: AnyUser, now: datetime) -> dict[str, list[QuizRow] | list[PastAttempt]]:
    """The student's current quizzes and past attempts (newest first)."""
    quizzes = Quiz.objects.filter(course__in=courses_for(user, [Role.STUDENT]))
    quizzes = quizzes.select_related("course").order_by("closes_at", "title")
    attempts = list(
        Attempt.objects.filter(user_id=user_id(user), quiz__in=quizzes)
        .select_related("quiz", "quiz__course")
        .order_by("-started_at")
    )
    rows = [row for row in (_quiz_row(q, attempts, now) for q in quizzes) if row is not None]
    past = [_past(a, now) for a in attempts if a.status != AttemptStatus.OPEN]
    return {"quizzes": rows, "past": past}

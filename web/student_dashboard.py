"""What the student dashboard shows: quizzes of the student's courses that are open or
still to open (window, attempts left, an open attempt to resume) and past attempts with
their scores where the release rules (grading.selectors) let the student see them."""

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from grading.models import Attempt, AttemptStatus
from grading.selectors import attempt_final_score, attempt_released
from quizbank.access import AnyUser, courses_studied, user_id
from quizbank.models import Quiz
from quizbank.selectors import quiz_is_live_only
from quizbank.services.quiz_access import QuizTerms, quiz_terms


@dataclass(frozen=True)
class QuizRow:
    quiz: Quiz
    state: str  # "open" or "upcoming"
    used: int
    attempts_left: int | None  # None: unlimited
    open_attempt: int | None
    terms: QuizTerms  # the quiz as it applies to this student (their override applied)
    live_only: bool  # asked aloud: an examiner starts it, the student does not


@dataclass(frozen=True)
class PastAttempt:
    attempt: Attempt
    released: bool
    pending: bool
    score: Decimal | None


def _state(terms: QuizTerms, now: datetime) -> str | None:
    if terms.closes_at is not None and now >= terms.closes_at:
        return None
    return "upcoming" if terms.opens_at is not None and now < terms.opens_at else "open"


def _quiz_row(
    quiz: Quiz, attempts: list[Attempt], now: datetime, terms: QuizTerms
) -> QuizRow | None:
    state = _state(terms, now)
    mine = [a for a in attempts if a.quiz_id == quiz.pk]
    open_attempt = next((a.pk for a in mine if a.status == AttemptStatus.OPEN), None)
    if state is None and open_attempt is None:
        return None
    if open_attempt is None and not quiz.slots.all():
        return None  # nothing to draw yet: students meet the quiz once it has a question
    allowed = terms.attempts_allowed
    left = max(0, allowed - len(mine)) if allowed else None
    return QuizRow(
        quiz, state or "open", len(mine), left, open_attempt, terms, quiz_is_live_only(quiz)
    )


def _past(attempt: Attempt, now: datetime) -> PastAttempt:
    released = attempt_released(attempt, now)
    pending = attempt.status == AttemptStatus.SUBMITTED
    score = attempt_final_score(attempt) if released and not pending else None
    return PastAttempt(attempt, released, pending, score)


def student_dashboard(
    user: AnyUser, now: datetime, *, enrolled: bool
) -> dict[str, list[QuizRow] | list[PastAttempt]] | None:
    """The student's current quizzes and past attempts (newest first), those of a course
    they have left included: their results stay theirs to read. None for a user neither
    `enrolled` as a student nor with any attempt."""
    quizzes = Quiz.objects.filter(course__in=courses_studied(user))
    quizzes = (
        quizzes.select_related("course")
        .prefetch_related("slots__question__current_version")
        .order_by("closes_at", "title")
    )
    attempts = list(
        Attempt.objects.filter(user_id=user_id(user))
        .select_related("quiz", "quiz__course")
        .order_by("-started_at")
    )
    if not enrolled and not attempts:
        return None
    me = user_id(user)
    rows = [
        row
        for row in (_quiz_row(q, attempts, now, quiz_terms(quiz=q, user_id=me)) for q in quizzes)
        if row is not None
    ]
    past = [_past(a, now) for a in attempts if a.status != AttemptStatus.OPEN]
    return {"quizzes": rows, "past": past}

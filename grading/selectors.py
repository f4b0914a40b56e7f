"""Reads of attempts: per-user access, release visibility, grades across attempts."""

from datetime import datetime
from decimal import Decimal

from django.db.models import QuerySet
from django.http import Http404

from grading.models import Attempt, AttemptStatus, Response
from quizbank.models import GradingMethod, Quiz, ReleasePolicy, Role
from quizbank.selectors_quizzes import (
    AnyUser,
    course_roles,
    courses_for_user,
    is_admin,
    user_id,
)

REVIEW_ROLES = frozenset({Role.EXAMINER})


def attempts_for_user(user: AnyUser) -> QuerySet[Attempt]:
    """The user's own attempts, plus every attempt in courses the user examines."""
    qs = Attempt.objects.select_related("quiz", "quiz__course", "user")
    if is_admin(user):
        return qs
    examined = courses_for_user(user).filter(
        memberships__user_id=user_id(user), memberships__role=Role.EXAMINER
    )
    return qs.filter(user_id=user_id(user)) | qs.filter(quiz__course__in=examined)


def access_attempt(user: AnyUser, attempt_id: int) -> Attempt:
    """The attempt if it is the user's own or the user examines its course; else 404."""
    attempt = Attempt.objects.select_related("quiz", "quiz__course").filter(pk=attempt_id).first()
    if attempt is None:
        raise Http404("No such attempt.")
    if (
        attempt.user_id == user_id(user)
        or course_roles(user, attempt.quiz.course_id) & REVIEW_ROLES
    ):
        return attempt
    raise Http404("No such attempt.")


def access_own_attempt(user: AnyUser, attempt_id: int) -> Attempt:
    """Only the student who owns the attempt may change it; anyone else gets 404."""
    attempt = access_attempt(user, attempt_id)
    if attempt.user_id != user_id(user):
        raise Http404("No such attempt.")
    return attempt


def results_released(quiz: Quiz, now: datetime) -> bool:
    """Whether the quiz's release policy lets students see scores and feedback now."""
    if quiz.released_at is not None and quiz.released_at <= now:
        return True
    if quiz.release_policy == ReleasePolicy.IMMEDIATELY:
        return True
    if quiz.release_policy == ReleasePolicy.AFTER_CLOSE:
        return quiz.closes_at is not None and now >= quiz.closes_at
    return False


def results_visible(user: AnyUser, attempt: Attempt, now: datetime) -> bool:
    """Examiners always see results; the student only once submitted and released."""
    if attempt.user_id != user_id(user):
        return True
    return attempt.status != AttemptStatus.OPEN and results_released(attempt.quiz, now)


def attempt_responses(attempt: Attempt) -> list[Response]:
    return list(attempt.responses.select_related("question_version").order_by("position"))


def attempt_final_score(attempt: Attempt) -> Decimal | None:
    """The attempt's score after the quiz's penalty for each attempt after the first."""
    if attempt.score is None:
        return None
    penalty = Decimal(str(attempt.quiz.penalty_per_attempt)) * (attempt.number - 1)
    factor = max(Decimal(0), Decimal(1) - penalty)
    return (attempt.score * factor).quantize(Decimal("0.001"))


def quiz_grade(quiz: Quiz, user_id: int) -> Decimal | None:
    """The student's grade for the quiz: highest, last or average graded attempt."""
    graded = list(
        Attempt.objects.filter(quiz=quiz, user_id=user_id, status=AttemptStatus.GRADED)
        .select_related("quiz")
        .order_by("number")
    )
    scores = [s for s in (attempt_final_score(a) for a in graded) if s is not None]
    if not scores:
        return None
    if quiz.grading_method == GradingMethod.LAST:
        return scores[-1]
    if quiz.grading_method == GradingMethod.AVERAGE:
        return (sum(scores, Decimal(0)) / len(scores)).quantize(Decimal("0.001"))
    return max(scores)

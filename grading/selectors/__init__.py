"""Reads of attempts: per-user access, release visibility, grades across attempts."""

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db.models import QuerySet
from django.http import Http404

from config.queries import unique_or_none
from grading.models import Attempt, AttemptStatus, Response
from grading.models.marking import ScoreChange
from quizbank.access import AnyUser, course_roles, courses_for, holds_every_role, user_id
from quizbank.models import GradingMethod, Quiz, ReleasePolicy, Role
from quizbank.services.quiz_access import quiz_answers_end_at

REVIEW_ROLES = frozenset({Role.EXAMINER})


def attempts_for_user(user: AnyUser) -> QuerySet[Attempt]:
    """The user's own attempts, plus every attempt in courses the user examines."""
    qs = Attempt.objects.select_related("quiz", "quiz__course", "user")
    if holds_every_role(user):
        return qs
    examined = courses_for(user).filter(
        memberships__user_id=user_id(user), memberships__role=Role.EXAMINER
    )
    return qs.filter(user_id=user_id(user)) | qs.filter(quiz__course__in=examined)


def access_attempt(user: AnyUser, attempt_id: int) -> Attempt:
    """The attempt if it is the user's own or the user examines its course; else 404."""
    attempt = unique_or_none(
        Attempt.objects.select_related("quiz", "quiz__course").filter(pk=attempt_id)
    )
    if attempt is None or not _may_read(user, attempt):
        raise Http404("No such attempt.")
    return attempt


def _may_read(user: AnyUser, attempt: Attempt) -> bool:
    return attempt.user_id == user_id(user) or bool(
        course_roles(user, attempt.quiz.course_id) & REVIEW_ROLES
    )


def access_attempt_answers(user: AnyUser, attempt_id: int) -> tuple[Attempt, list[Response]]:
    """`access_attempt` and `attempt_responses` in one statement (the path a polling page or
    client takes): the answers are read with their attempt, quiz and course, and access is
    decided on that attempt, so answers and totals come from the same snapshot."""
    responses = list(
        Response.objects.filter(attempt_id=attempt_id)
        .select_related("question_version", "attempt__quiz__course")
        .order_by("position")
    )
    if not responses:  # no such attempt, or one without answers
        attempt = access_attempt(user, attempt_id)
        return attempt, attempt_responses(attempt)
    attempt = responses[0].attempt
    if not _may_read(user, attempt):
        raise Http404("No such attempt.")
    for response in responses:
        response.attempt = attempt
    return attempt, responses


def access_own_attempt(user: AnyUser, attempt_id: int) -> Attempt:
    """Only the student who owns the attempt may change it; anyone else gets 404."""
    return own_attempt(user_id(user), access_attempt(user, attempt_id))


def own_attempt(owner_id: int, attempt: Attempt | None) -> Attempt:
    """`attempt` when it is `owner_id`'s own; a 404 for anyone else's, or none."""
    if attempt is None or attempt.user_id != owner_id:
        raise Http404("No such attempt.")
    return attempt


# Staff try code while writing or checking a question, with no attempt to run it in.
CODE_TRYING_ROLES = (Role.AUTHOR, Role.EXAMINER)


def runs_code_without_attempt(user: AnyUser) -> bool:
    """Whether the user may run code outside an attempt: an author or examiner of some
    course, or a superuser. Everyone else runs code only within an open attempt."""
    return holds_every_role(user) or courses_for(user, CODE_TRYING_ROLES).exists()


def results_released(quiz: Quiz, now: datetime) -> bool:
    """Whether the quiz's release policy lets students see scores and feedback now."""
    if quiz.released_at is not None and quiz.released_at <= now:
        return True
    if quiz.release_policy == ReleasePolicy.IMMEDIATELY:
        return True
    if quiz.release_policy == ReleasePolicy.AFTER_CLOSE:
        # Not at the quiz's close: a student still in the grace period, or given a later
        # close, could otherwise read a classmate's feedback and still change answers.
        ends = quiz_answers_end_at(quiz)
        return ends is not None and now >= ends
    return False


def attempt_released(attempt: Attempt, now: datetime, *, quiz_released: bool | None = None) -> bool:
    """Whether the attempt's student may see its results now: once submitted and released;
    a live viva only once a release has covered it, whatever the quiz's policy.
    `quiz_released` is `results_released(attempt.quiz, now)` where the caller has it already
    (one read for many attempts of a quiz)."""
    if attempt.status == AttemptStatus.OPEN:
        return False
    if attempt.live_viva:
        return attempt.released_at is not None and attempt.released_at <= now
    return results_released(attempt.quiz, now) if quiz_released is None else quiz_released


def results_visible(user: AnyUser, attempt: Attempt, now: datetime) -> bool:
    """Examiners always see results; the student only once the attempt is released."""
    if attempt.user_id != user_id(user):
        return True
    return attempt_released(attempt, now)


def _policy_opens(attempt: Attempt, submitted: datetime) -> datetime | None:
    quiz = attempt.quiz
    if quiz.release_policy == ReleasePolicy.IMMEDIATELY:
        return submitted
    if quiz.release_policy == ReleasePolicy.AFTER_CLOSE:
        return quiz_answers_end_at(quiz)
    return None


def released_since(attempt: Attempt) -> datetime | None:
    """When the attempt's results were (or will be) first shown to its student; None while
    nothing releases them. A change of score after this moment is an update the student
    is told about."""
    if attempt.status == AttemptStatus.OPEN or attempt.submitted_at is None:
        return None
    if attempt.live_viva:
        return attempt.released_at
    opens = [
        t
        for t in (attempt.quiz.released_at, _policy_opens(attempt, attempt.submitted_at))
        if t is not None
    ]
    return max(min(opens), attempt.submitted_at) if opens else None


@dataclass(frozen=True)
class ScoreUpdate:
    """A released answer's score changed: when last, and the score shown before it."""

    updated_at: datetime
    previous: float


def score_updates(attempt: Attempt, now: datetime) -> dict[int, ScoreUpdate]:
    """Per response, its change of score after the student was first shown the results.

    The first mark of an answer released as pending is not an update (nothing was shown
    before); later changes are, and `previous` is the last score shown before the latest.
    """
    since = released_since(attempt)
    if since is None or since > now:
        return {}
    changes = ScoreChange.objects.filter(
        response__attempt=attempt, created_at__gt=since, created_at__lte=now
    ).order_by("pk")  # the order written under the answer's lock (marking_history)
    updates: dict[int, ScoreUpdate] = {}
    for change in changes:
        if change.before is not None:
            updates[change.response_id] = ScoreUpdate(change.created_at, change.before)
        elif change.response_id in updates:
            previous = updates[change.response_id].previous
            updates[change.response_id] = ScoreUpdate(change.created_at, previous)
    return updates


_TOTALS = ("status", "score", "max_score", "graded_at")


def attempt_responses(attempt: Attempt) -> list[Response]:
    """The attempt's answers in order, and its status and totals read again in the same
    statement: grading commits answers and totals at once, so answers read as graded are
    never shown beside totals from before that commit."""
    responses = list(
        attempt.responses.select_related("question_version", "attempt").order_by("position")
    )
    if responses:
        for name in _TOTALS:
            setattr(attempt, name, getattr(responses[0].attempt, name))
    else:
        attempt.refresh_from_db(fields=list(_TOTALS))
    for response in responses:
        response.attempt = attempt
    return responses


def attempt_final_score(attempt: Attempt) -> Decimal | None:
    """The attempt's score after the quiz's penalty for each attempt after the first."""
    if attempt.score is None:
        return None
    penalty = Decimal(str(attempt.quiz.penalty_per_attempt)) * (attempt.number - 1)
    factor = max(Decimal(0), Decimal(1) - penalty)
    return (attempt.score * factor).quantize(Decimal("0.001"))


def attempt_pending(attempt: Attempt) -> bool:
    """Whether the attempt is submitted and still waiting for the runner or a marker (a live
    viva only once a release has covered it)."""
    if attempt.status != AttemptStatus.SUBMITTED:
        return False
    return not attempt.live_viva or attempt.released_at is not None


def attempts_pending(quiz: Quiz, user_id: int) -> bool:
    """Whether the student has an attempt of the quiz still pending (`attempt_pending`)."""
    waiting = Attempt.objects.filter(quiz=quiz, user_id=user_id, status=AttemptStatus.SUBMITTED)
    return any(attempt_pending(a) for a in waiting.only("status", "live_viva", "released_at"))


def quiz_grade(quiz: Quiz, user_id: int, *, seen_at: datetime | None = None) -> Decimal | None:
    """The student's grade for the quiz: highest, last or average graded attempt; with
    `seen_at`, only over the attempts the student may see then (not an unreleased viva)."""
    graded = [
        a
        for a in Attempt.objects.filter(quiz=quiz, user_id=user_id, status=AttemptStatus.GRADED)
        .select_related("quiz")
        .order_by("number")
        if seen_at is None or attempt_released(a, seen_at)
    ]
    return attempts_grade(quiz, graded)


def attempts_grade(quiz: Quiz, graded: list[Attempt]) -> Decimal | None:
    """The grade the quiz's grading method gives these graded attempts (in number order)."""
    scores = [s for s in (attempt_final_score(a) for a in graded) if s is not None]
    if not scores:
        return None
    if quiz.grading_method == GradingMethod.LAST:
        return scores[-1]
    if quiz.grading_method == GradingMethod.AVERAGE:
        return (sum(scores, Decimal(0)) / len(scores)).quantize(Decimal("0.001"))
    return max(scores)

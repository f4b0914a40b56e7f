"""Grades for an LMS: one row per student of a quiz, with the student's external id.

`score` is the student's quiz grade over their graded attempts (the quiz's grading
method and penalties applied), whether or not it is released yet; `released` says
whether the student may see it. `updated_at` is the latest change to anything the row
shows (an attempt started, submitted, graded or released, an answer re-marked, the
quiz released or withdrawn), so `updated_since` finds every row that changed.
"""

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.contrib.auth.models import User
from django.db.models import Max

from grading.models import Attempt, AttemptStatus
from grading.models import Response as Answer
from grading.models.marking import ScoreChange
from grading.models.release import QuizRelease
from grading.selectors import attempt_released, attempts_pending, quiz_grade
from lms.models import ExternalIdentity
from quizbank.models import Quiz, Role


class GradeStatus:
    NOT_ATTEMPTED = "not_attempted"
    IN_PROGRESS = "in_progress"
    PENDING_MANUAL = "pending_manual"
    FULLY_GRADED = "fully_graded"


GRADE_STATUSES = [
    GradeStatus.NOT_ATTEMPTED,
    GradeStatus.IN_PROGRESS,
    GradeStatus.PENDING_MANUAL,
    GradeStatus.FULLY_GRADED,
]


@dataclass(frozen=True)
class GradeRow:
    user_id: int
    username: str
    external_id: str | None
    score: Decimal | None
    max_score: Decimal | None
    status: str
    released: bool
    updated_at: datetime | None


def _latest(*moments: datetime | None) -> datetime | None:
    known = [m for m in moments if m is not None]
    return max(known) if known else None


def _status(quiz: Quiz, user_id: int, attempts: list[Attempt]) -> str:
    if not attempts:
        return GradeStatus.NOT_ATTEMPTED
    if attempts_pending(quiz, user_id):
        return GradeStatus.PENDING_MANUAL
    if any(a.status == AttemptStatus.GRADED for a in attempts):
        return GradeStatus.FULLY_GRADED
    return GradeStatus.IN_PROGRESS


def _updated_at(
    quiz: Quiz, attempts: list[Attempt], quiz_changed: datetime | None
) -> datetime | None:
    if not attempts:
        return None
    answers = Answer.objects.filter(attempt__in=attempts)
    graded = answers.aggregate(at=Max("graded_at"))["at"]
    remarked = ScoreChange.objects.filter(response__in=answers).aggregate(at=Max("created_at"))
    moments = [
        m for a in attempts for m in (a.started_at, a.submitted_at, a.graded_at, a.released_at)
    ]
    return _latest(*moments, graded, remarked["at"], quiz_changed)


def _row(
    quiz: Quiz, user: User, external_id: str | None, now: datetime, quiz_changed: datetime | None
) -> GradeRow:
    attempts = list(
        Attempt.objects.filter(quiz=quiz, user=user).select_related("quiz").order_by("number")
    )
    graded = [a for a in attempts if a.status == AttemptStatus.GRADED]
    return GradeRow(
        user_id=user.pk,
        username=user.username,
        external_id=external_id,
        score=quiz_grade(quiz, user.pk),
        max_score=graded[-1].max_score if graded else None,
        status=_status(quiz, user.pk, attempts),
        released=bool(graded) and all(attempt_released(a, now) for a in graded),
        updated_at=_updated_at(quiz, attempts, quiz_changed),
    )


def _quiz_changed(quiz: Quiz) -> datetime | None:
    releases = QuizRelease.objects.filter(quiz=quiz).aggregate(at=Max("created_at"))
    return _latest(quiz.released_at, releases["at"])


def student_grade_row(*, quiz: Quiz, user: User, now: datetime) -> GradeRow:
    """One student's row (without an external id)."""
    return _row(quiz, user, None, now, _quiz_changed(quiz))


def _external_ids(user_ids: set[int], namespace: str | None) -> dict[int, str]:
    rows = ExternalIdentity.objects.filter(user_id__in=user_ids).order_by("-namespace")
    if namespace is not None:
        rows = rows.filter(namespace=namespace)
    return dict(rows.values_list("user_id", "external_id"))


def quiz_grade_rows(
    *, quiz: Quiz, namespace: str | None, now: datetime, updated_since: datetime | None = None
) -> list[GradeRow]:
    """Every student of the quiz (members and anyone with an attempt), by username; with
    `updated_since`, only rows whose `updated_at` is at or after it. External ids come
    from `namespace` (an API client's), or from any namespace when None."""
    members = quiz.course.memberships.filter(role=Role.STUDENT).values_list("user_id", flat=True)
    attempted = Attempt.objects.filter(quiz=quiz).values_list("user_id", flat=True)
    ids = set(members) | set(attempted)
    external = _external_ids(ids, namespace)
    quiz_changed = _quiz_changed(quiz)
    users = User.objects.filter(pk__in=ids).order_by("username")
    rows = [_row(quiz, u, external.get(u.pk), now, quiz_changed) for u in users]
    if updated_since is None:
        return rows
    return [r for r in rows if r.updated_at is not None and r.updated_at >= updated_since]

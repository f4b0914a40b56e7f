"""Grades for an LMS: one row per student of a quiz, with the student's external id.

`score` is the student's quiz grade over their graded attempts (the quiz's grading
method and penalties applied), whether or not it is released yet; `released` says
whether the student may see it. `updated_at` is the latest change to anything the row
shows (an attempt started, submitted, graded or released, an answer re-marked, the
quiz released or withdrawn), so `updated_since` finds every row that changed.
"""

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.contrib.auth.models import User
from django.db.models import DateTimeField, Expression, Max, QuerySet, Value
from django.db.models.functions import Coalesce, Greatest

from grading.models import Attempt, AttemptStatus
from grading.models.release import QuizRelease
from grading.selectors import attempt_pending, attempt_released, attempts_grade, results_released
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


def _quiz_changed(quiz: Quiz) -> datetime | None:
    releases = QuizRelease.objects.filter(quiz=quiz).aggregate(at=Max("created_at"))
    return _latest(quiz.released_at, releases["at"])


# The moments besides `started_at` that change a row. `started_at` is never null and stands
# in for a null one: on SQLite, GREATEST is null as soon as any argument is.
_MOMENTS = (
    "submitted_at",
    "graded_at",
    "released_at",
    "responses__graded_at",
    "responses__score_changes__created_at",
)


def _updated_at(
    attempts: QuerySet[Attempt], quiz_changed: datetime | None, since: datetime | None
) -> dict[int, datetime]:
    """Each student's `updated_at` over these attempts; with `since`, only those at or after."""
    started = Max("started_at")
    moments: list[Expression] = [started, *(Coalesce(Max(m), started) for m in _MOMENTS)]
    if quiz_changed is not None:
        moments.append(Value(quiz_changed, output_field=DateTimeField()))
    per_user = attempts.order_by().values("user_id").annotate(at=Greatest(*moments))
    if since is not None:
        per_user = per_user.filter(at__gte=since)
    return {row["user_id"]: row["at"] for row in per_user}


def _status(attempts: list[Attempt]) -> str:
    if not attempts:
        return GradeStatus.NOT_ATTEMPTED
    if any(attempt_pending(a) for a in attempts):
        return GradeStatus.PENDING_MANUAL
    if any(a.status == AttemptStatus.GRADED for a in attempts):
        return GradeStatus.FULLY_GRADED
    return GradeStatus.IN_PROGRESS


@dataclass(frozen=True)
class _Moment:
    now: datetime
    quiz_released: bool  # results_released(quiz, now), read once for every row


def _row(
    quiz: Quiz,
    user: User,
    attempts: list[Attempt],
    external_id: str | None,
    updated_at: datetime | None,
    at: _Moment,
) -> GradeRow:
    graded = [a for a in attempts if a.status == AttemptStatus.GRADED]
    released = (attempt_released(a, at.now, quiz_released=at.quiz_released) for a in graded)
    return GradeRow(
        user_id=user.pk,
        username=user.username,
        external_id=external_id,
        score=attempts_grade(quiz, graded),
        max_score=graded[-1].max_score if graded else None,
        status=_status(attempts),
        released=bool(graded) and all(released),
        updated_at=updated_at,
    )


def _rows(
    quiz: Quiz, updated: dict[int, datetime], ids: set[int], external: dict[int, str], now: datetime
) -> list[GradeRow]:
    """The rows of students `ids` (by username): their attempts and users are each read in
    one query for them all."""
    attempts = Attempt.objects.filter(quiz=quiz, user_id__in=ids).select_related("quiz")
    by_user: dict[int, list[Attempt]] = defaultdict(list)
    for attempt in attempts.order_by("number"):
        by_user[attempt.user_id].append(attempt)
    at = _Moment(now, results_released(quiz, now))
    users = User.objects.filter(pk__in=ids).order_by("username")
    return [_row(quiz, u, by_user[u.pk], external.get(u.pk), updated.get(u.pk), at) for u in users]


def student_grade_row(*, quiz: Quiz, user: User, now: datetime) -> GradeRow:
    """One student's row (without an external id)."""
    attempts = Attempt.objects.filter(quiz=quiz, user=user)
    updated = _updated_at(attempts, _quiz_changed(quiz), None)
    [row] = _rows(quiz, updated, {user.pk}, {}, now)
    return row


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
    from `namespace` (an API client's), or from any namespace when None. A constant
    number of queries, however many students."""
    attempts = Attempt.objects.filter(quiz=quiz)
    updated = _updated_at(attempts, _quiz_changed(quiz), updated_since)
    ids = set(updated)
    if updated_since is None:  # a student without an attempt has no `updated_at`
        members = quiz.course.memberships.filter(role=Role.STUDENT)
        ids |= set(members.values_list("user_id", flat=True))
    return _rows(quiz, updated, ids, _external_ids(ids, namespace), now)

"""The quiz gradebook: one row per student, per-question points, total and percentage.

The attempt that counts follows the quiz's grading method: the highest or the
last graded attempt (its question points), or, for `average`, each question's
points averaged over the graded attempts that drew it. The total is the
student's quiz grade (penalties for later attempts included).
"""

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.models import User

from grading.models import Attempt, AttemptStatus, Response
from grading.selectors import attempt_final_score, quiz_grade
from quizbank.models import GradingMethod, Quiz, Role

_Q = Decimal("0.001")


@dataclass(frozen=True)
class Column:
    question_id: int
    label: str


def _counting(quiz: Quiz, attempts: list[Attempt]) -> list[Attempt]:
    if not attempts or quiz.grading_method == GradingMethod.AVERAGE:
        return attempts
    if quiz.grading_method == GradingMethod.LAST:
        return [attempts[-1]]
    return [max(attempts, key=lambda a: (attempt_final_score(a) or 0, -a.number))]


def _points(responses: list[Response]) -> dict[int, Decimal]:
    sums: dict[int, list[Decimal]] = defaultdict(list)
    for r in responses:
        if r.score is not None:
            sums[r.question_version.question_id].append(Decimal(str(r.score)) * r.points)
    return {q: (sum(v, Decimal(0)) / len(v)).quantize(_Q) for q, v in sums.items()}


def _columns(responses: list[Response]) -> list[Column]:
    first: dict[int, tuple[int, str]] = {}
    for r in responses:
        q = r.question_version.question_id
        label = f"{r.question_version.question.slug} [{r.points}]"
        first[q] = min(first.get(q, (r.slot_position, label)), (r.slot_position, label))
    ordered = sorted(first.items(), key=lambda item: (item[1][0], item[0]))
    return [Column(q, label) for q, (_, label) in ordered]


def _students(quiz: Quiz, attempt_users: set[int]) -> list[User]:
    ids = set(quiz.course.memberships.filter(role=Role.STUDENT).values_list("user_id", flat=True))
    return list(User.objects.filter(pk__in=ids | attempt_users).order_by("username"))


def gradebook(quiz: Quiz) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the gradebook CSV; students without a graded attempt get blanks."""
    attempts = list(Attempt.objects.filter(quiz=quiz, status=AttemptStatus.GRADED)
                    .select_related("quiz").order_by("user_id", "number"))  # fmt: skip
    responses = list(Response.objects.filter(attempt__in=attempts)
                     .select_related("question_version__question"))  # fmt: skip
    by_attempt: dict[int, list[Response]] = defaultdict(list)
    for r in responses:
        by_attempt[r.attempt_id].append(r)
    by_user: dict[int, list[Attempt]] = defaultdict(list)
    for a in attempts:
        by_user[a.user_id].append(a)
    columns = _columns(responses)
    header = ["username", "email", *(c.label for c in columns), "total", "max", "percentage"]
    rows = [_row(quiz, user, by_user[user.pk], by_attempt, columns)
            for user in _students(quiz, set(by_user))]  # fmt: skip
    return header, rows


def _percentage(total: Decimal | None, maximum: Decimal | None) -> str:
    if total is None or not maximum:
        return ""
    return str((total / maximum * 100).quantize(Decimal("0.01")))


def _row(quiz: Quiz, user: User, attempts: list[Attempt],
         by_attempt: dict[int, list[Response]], columns: list[Column]) -> list[str]:  # fmt: skip
    counting = _counting(quiz, attempts)
    points = _points([r for a in counting for r in by_attempt[a.pk]])
    cells = [str(points[c.question_id]) if c.question_id in points else "" for c in columns]
    if not counting:
        return [user.username, user.email, *cells, "", "", ""]
    total = quiz_grade(quiz, user.pk)
    maximum = (sum((a.max_score for a in counting), Decimal(0)) / len(counting)).quantize(_Q)
    return [user.username, user.email, *cells, "" if total is None else str(total),
            str(maximum), _percentage(total, maximum)]  # fmt: skip

"""Exports: the quiz gradebook and the CSV helpers it and the statistics use."""

import csv
import io
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.models import User

from grading.models import Attempt, AttemptStatus, Response
from grading.selectors import attempt_final_score, attempts_grade
from quizbank.models import GradingMethod, Quiz, QuizSlot, Role
from quizbank.selectors import quiz_slots

# CSV helpers shared by the exports.

# A cell is text, a number or empty; only text can be read as a formula by a spreadsheet.
Cell = str | int | float | Decimal | None

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Cell) -> str:
    """The cell as CSV text: numbers as they are (a negative number stays a number), empty
    for None, and text that a spreadsheet would run as a formula defused by a leading quote."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float, Decimal)):
        return str(value)
    return f"'{value}" if value.startswith(_FORMULA_STARTS) else value


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Cell]]) -> str:
    """The CSV text, every cell quoted (as OWASP advises): a spreadsheet whose locale splits
    on ";" would otherwise cut `x;=HYPERLINK(...)` into a second cell that is a formula."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL)
    writer.writerow([safe_cell(cell) for cell in header])
    writer.writerows([safe_cell(cell) for cell in row] for row in rows)
    return out.getvalue()


# The quiz gradebook: one row per student, points per quiz slot, total and percentage.
#
# Columns are the quiz's slots, labelled by slot number and what the slot holds (its
# question, or the pool it draws from), never by the question one student happened to
# draw; a slot that draws several questions sums them. Questions asked in live vivas
# get columns of their own. Each row starts with the student's user id (stable) and
# username.
#
# The attempt that counts follows the quiz's grading method: the highest or the
# last graded attempt, or, for `average`, each slot's points averaged over the graded
# attempts that have it. The total is the student's quiz grade (penalties for later
# attempts included).

_Q = Decimal("0.001")
SlotKey = tuple[bool, int]  # (asked in a live viva, slot position)


@dataclass(frozen=True)
class Column:
    key: SlotKey
    label: str


def _slot_label(slot: QuizSlot) -> str:
    if slot.question is not None:
        return f"slot {slot.position + 1}: {slot.question.slug}"
    pool = [
        f"topic {slot.pool_topic.slug}" if slot.pool_topic else "",
        f"tag {slot.pool_tag}" if slot.pool_tag else "",
        f"difficulty {slot.pool_difficulty}" if slot.pool_difficulty else "",
    ]
    drawn = f" (draws {slot.draw_count})" if slot.draw_count > 1 else ""
    return f"slot {slot.position + 1}: pool {', '.join(p for p in pool if p)}{drawn}"


def _key(response: Response, live: set[int]) -> SlotKey:
    return (response.attempt_id in live, response.slot_position)


def _columns(quiz: Quiz, responses: list[Response], live: set[int]) -> list[Column]:
    labels: dict[SlotKey, str] = {(False, s.position): _slot_label(s) for s in quiz_slots(quiz)}
    points: dict[SlotKey, set[Decimal]] = defaultdict(set)
    for r in responses:
        key = _key(r, live)
        labels.setdefault(key, f"{'live viva question' if key[0] else 'slot'} {key[1] + 1}")
        points[key].add(r.points)
    columns = []
    for key in sorted(labels):
        # The points go in the label only where every answer in the column was worth the same.
        shown = f" [{next(iter(points[key]))}]" if len(points[key]) == 1 else ""
        columns.append(Column(key, labels[key] + shown))
    return columns


def _counting(quiz: Quiz, attempts: list[Attempt]) -> list[Attempt]:
    if not attempts or quiz.grading_method == GradingMethod.AVERAGE:
        return attempts
    if quiz.grading_method == GradingMethod.LAST:
        return [attempts[-1]]
    return [max(attempts, key=lambda a: (attempt_final_score(a) or 0, -a.number))]


def _points(responses: list[Response], live: set[int]) -> dict[SlotKey, Decimal]:
    """Each slot's points in each attempt, then averaged over the attempts that have it."""
    per_attempt: dict[SlotKey, dict[int, Decimal]] = defaultdict(dict)
    for r in responses:
        if r.score is not None:
            slot = per_attempt[_key(r, live)]
            slot[r.attempt_id] = (
                slot.get(r.attempt_id, Decimal(0)) + Decimal(str(r.score)) * r.points
            )
    return {
        key: (sum(values.values(), Decimal(0)) / len(values)).quantize(_Q)
        for key, values in per_attempt.items()
    }


def _students(quiz: Quiz, attempt_users: set[int]) -> list[User]:
    ids = set(quiz.course.memberships.filter(role=Role.STUDENT).values_list("user_id", flat=True))
    return list(User.objects.filter(pk__in=ids | attempt_users).order_by("username"))


def gradebook(quiz: Quiz) -> tuple[list[str], list[list[Cell]]]:
    """(header, rows) of the gradebook CSV; students without a graded attempt get blanks."""
    attempts = list(
        Attempt.objects.filter(quiz=quiz, status=AttemptStatus.GRADED)
        .select_related("quiz")
        .order_by("user_id", "number")
    )
    live = {a.pk for a in attempts if a.live_viva}
    # Not the answers and feedback (code, its output): a course's export would hold them all.
    needed = ("attempt", "slot_position", "points", "score")
    responses = list(Response.objects.filter(attempt__in=attempts).only(*needed))
    by_attempt: dict[int, list[Response]] = defaultdict(list)
    for r in responses:
        by_attempt[r.attempt_id].append(r)
    by_user: dict[int, list[Attempt]] = defaultdict(list)
    for a in attempts:
        by_user[a.user_id].append(a)
    columns = _columns(quiz, responses, live)
    header = [
        "user_id",
        "username",
        "email",
        *(c.label for c in columns),
        "total",
        "max",
        "percentage",
    ]
    rows = [
        _row(quiz, user, by_user[user.pk], by_attempt, columns, live)
        for user in _students(quiz, set(by_user))
    ]
    return header, rows


def _percentage(total: Decimal | None, maximum: Decimal | None) -> Decimal | None:
    if total is None or not maximum:
        return None
    return (total / maximum * 100).quantize(Decimal("0.01"))


def _row(
    quiz: Quiz,
    user: User,
    attempts: list[Attempt],
    by_attempt: dict[int, list[Response]],
    columns: list[Column],
    live: set[int],
) -> list[Cell]:
    counting = _counting(quiz, attempts)
    points = _points([r for a in counting for r in by_attempt[a.pk]], live)
    cells: list[Cell] = [points.get(c.key) for c in columns]
    if not counting:
        return [user.pk, user.username, user.email, *cells, None, None, None]
    total = attempts_grade(quiz, attempts)
    maximum = (sum((a.max_score for a in counting), Decimal(0)) / len(counting)).quantize(_Q)
    return [user.pk, user.username, user.email, *cells, total, maximum, _percentage(total, maximum)]

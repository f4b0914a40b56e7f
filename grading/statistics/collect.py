"""Read a quiz's attempts into plain rows for the statistics (one query each).

Every response is read together with the question version it pinned, so choices
and rubric levels are always interpreted on the version the student saw.
"""

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from grading.models import Attempt, AttemptStatus, Response
from grading.models.marking import Mark, MarkRole
from grading.statistics.agreement import MarkPair
from quizbank.models import Question, Quiz


@dataclass
class AttemptRow:
    total: float
    maximum: float
    seconds: float | None
    user_id: int
    number: int
    started_at: datetime | None = None
    graded: bool = True
    # The stored totals, exact (the distribution bins on these).
    score: Decimal = Decimal(0)
    max_score: Decimal = Decimal(0)


@dataclass
class ItemRow:
    question_id: int
    title: str
    qtype: str
    content: dict[str, Any]
    version: int = 0
    attempt_ids: list[int] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    points: list[float] = field(default_factory=list)
    # Per response: (its version number, the choice indices it picked; [] for none).
    picks: list[tuple[int, list[int]]] = field(default_factory=list)
    choices: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    # Seconds spent on the question, from answers whose autosaves recorded any time.
    seconds: list[float] = field(default_factory=list)


def quiz_attempts(quiz: Quiz) -> dict[int, AttemptRow]:
    """Every attempt of the quiz by id, whatever its state, with its student and start."""
    rows = Attempt.objects.filter(quiz=quiz).values_list(
        "pk", "score", "max_score", "started_at", "submitted_at", "user_id", "number", "status"
    )
    return {
        pk: AttemptRow(
            total=float(score or 0),
            maximum=float(maximum),
            seconds=(end - start).total_seconds() if end and start else None,
            user_id=user,
            number=number,
            started_at=start,
            graded=status == AttemptStatus.GRADED,
            score=score or Decimal(0),
            max_score=maximum,
        )
        for pk, score, maximum, start, end, user, number, status in rows
    }


def _picks(qtype: str, answer: Any) -> list[int] | None:
    if qtype == "single_choice":
        ok = isinstance(answer, dict) and isinstance(answer.get("choice"), int)
        return [int(answer["choice"])] if ok else []
    if qtype == "multiple_choice":
        ok = isinstance(answer, dict) and isinstance(answer.get("choices"), list)
        return [int(index) for index in answer["choices"]] if ok else []
    return None


def _item(items: dict[int, ItemRow], r: Response) -> ItemRow:
    version = r.question_version
    item = items.get(version.question_id)
    if item is None:
        item = items[version.question_id] = ItemRow(version.question_id, "", "", {})
    if version.number > item.version:
        # Title, type and content come from the newest version seen.
        content = version.content
        item.title, item.qtype = str(content.get("title", "")), str(content.get("type", ""))
        item.content, item.version = content, version.number
    return item


def item_rows(attempt_ids: list[int]) -> dict[int, ItemRow]:
    """Scored responses of the attempts, grouped by question (every version together)."""
    items: dict[int, ItemRow] = {}
    responses = (
        Response.objects.filter(attempt_id__in=attempt_ids, score__isnull=False)
        .select_related("question_version")
        .order_by("attempt_id", "position")
    )
    for r in responses:
        item = _item(items, r)
        item.attempt_ids.append(r.attempt_id)
        item.scores.append(float(r.score or 0))
        item.points.append(float(r.score or 0) * float(r.points))
        if r.time_spent.total_seconds() > 0:
            item.seconds.append(r.time_spent.total_seconds())
        content = r.question_version.content
        picked = _picks(str(content.get("type", "")), r.answer)
        if picked is not None:
            number = r.question_version.number
            item.picks.append((number, picked))
            item.choices.setdefault(number, list(content.get("choices", [])))
    return items


def item_stubs(question_ids: list[int]) -> dict[int, ItemRow]:
    """Empty rows (title and type only) for questions with no scored response in scope."""
    rows = Question.objects.filter(pk__in=question_ids).values_list("pk", "title", "type")
    return {pk: ItemRow(pk, title, qtype, {}) for pk, title, qtype in rows.order_by("pk")}


def double_marks(attempt_ids: list[int]) -> dict[int, list[MarkPair]]:
    """First and second markers' levels on each double-marked answer, by question,
    whatever the answer's marking state (a disagreement awaiting moderation counts)."""
    marks = Mark.objects.filter(
        response__attempt_id__in=attempt_ids, role__in=[MarkRole.FIRST, MarkRole.SECOND]
    ).values_list(
        "response_id",
        "response__question_version__question_id",
        "response__question_version__content",
        "role",
        "levels",
    )
    by_response: dict[int, dict[str, Any]] = {}
    for response_id, question_id, content, role, levels in marks.order_by("response_id"):
        row = by_response.setdefault(response_id, {"question": question_id, "content": content})
        row[role] = levels
    pairs: dict[int, list[MarkPair]] = {}
    for row in by_response.values():
        if MarkRole.FIRST in row and MarkRole.SECOND in row:
            rubric = list(row["content"].get("rubric", []))
            pair = MarkPair(row[MarkRole.FIRST], row[MarkRole.SECOND], rubric)
            pairs.setdefault(row["question"], []).append(pair)
    return pairs

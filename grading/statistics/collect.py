"""Read graded attempts of a quiz into plain rows for the statistics (one query each)."""

from dataclasses import dataclass, field
from typing import Any

from grading.models import Attempt, AttemptStatus, Response
from grading.models.marking import Mark, MarkRole
from quizbank.models import Quiz


@dataclass
class AttemptRow:
    total: float
    maximum: float
    seconds: float | None
    user_id: int
    number: int


@dataclass
class ItemRow:
    question_id: int
    title: str
    qtype: str
    content: dict[str, Any]
    attempt_ids: list[int] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    points: list[float] = field(default_factory=list)
    picks: list[list[int]] = field(default_factory=list)
    # Seconds spent on the question, from answers whose autosaves recorded any time.
    seconds: list[float] = field(default_factory=list)


def graded_attempts(quiz: Quiz) -> dict[int, AttemptRow]:
    """The quiz's graded attempts by id, with each one's student and attempt number."""
    rows = Attempt.objects.filter(quiz=quiz, status=AttemptStatus.GRADED).values_list(
        "pk", "score", "max_score", "started_at", "submitted_at", "user_id", "number"
    )
    return {
        pk: AttemptRow(
            total=float(score or 0),
            maximum=float(maximum),
            seconds=(end - start).total_seconds() if end and start else None,
            user_id=user,
            number=number,
        )  # fmt: skip
        for pk, score, maximum, start, end, user, number in rows
    }


def _picks(answer: Any) -> list[int] | None:
    if not isinstance(answer, dict):
        return None
    if "choice" in answer:
        return [int(answer["choice"])]
    if "choices" in answer:
        return [int(index) for index in answer["choices"]]
    return None


def item_rows(attempt_ids: list[int]) -> dict[int, ItemRow]:
    """Scored responses of the attempts, grouped by question (every version together)."""
    items: dict[int, ItemRow] = {}
    responses = (
        Response.objects.filter(attempt_id__in=attempt_ids, score__isnull=False)
        .select_related("question_version")
        .order_by("attempt_id", "position")
    )
    for r in responses:
        content = r.question_version.content
        item = items.setdefault(
            r.question_version.question_id,
            ItemRow(r.question_version.question_id, str(content.get("title", "")),
                    str(content.get("type", "")), content),
        )  # fmt: skip
        item.attempt_ids.append(r.attempt_id)
        item.scores.append(float(r.score or 0))
        item.points.append(float(r.score or 0) * float(r.points))
        if r.time_spent.total_seconds() > 0:
            item.seconds.append(r.time_spent.total_seconds())
        picked = _picks(r.answer)
        if picked is not None:
            item.picks.append(picked)
    return items


def double_marks(attempt_ids: list[int]) -> dict[int, list[tuple[list[int], list[int]]]]:
    """First and second markers' levels on each double-marked answer, by question."""
    marks = Mark.objects.filter(
        response__attempt_id__in=attempt_ids, role__in=[MarkRole.FIRST, MarkRole.SECOND]
    ).values_list("response_id", "response__question_version__question_id", "role", "levels")
    by_response: dict[int, dict[str, Any]] = {}
    for response_id, question_id, role, levels in marks:
        by_response.setdefault(response_id, {"question": question_id})[role] = levels
    pairs: dict[int, list[tuple[list[int], list[int]]]] = {}
    for row in by_response.values():
        if MarkRole.FIRST in row and MarkRole.SECOND in row:
            pairs.setdefault(row["question"], []).append(
                (row[MarkRole.FIRST], row[MarkRole.SECOND])
            )
    return pairs

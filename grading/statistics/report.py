"""Per-quiz and per-question statistics, as plain dicts (definitions: docs/statistics.md).

Item analysis uses the graded attempts in scope; marker agreement uses every
double-marked answer of the attempts in scope, whatever its marking state.
"""

from dataclasses import asdict
from typing import Any

from grading.statistics.agreement import (
    MarkPair,
    criteria_agreement,
    most_disputed,
    pooled_agreement,
)
from grading.statistics.collect import (
    AttemptRow,
    ItemRow,
    double_marks,
    item_rows,
    item_stubs,
    quiz_attempts,
)
from grading.statistics.items import (
    corrected_item_total,
    discrimination_index,
    distribution,
    facility,
    mean,
    median,
)
from grading.statistics.options import omitted, option_rates
from grading.statistics.scope import AttemptScope, in_scope
from quizbank.models import Quiz

BINS = 10
CHOICE_TYPES = ("single_choice", "multiple_choice")


def _choices(item: ItemRow) -> list[dict[str, Any]]:
    if item.qtype not in CHOICE_TYPES or not item.choices:
        return []
    return [asdict(row) for row in option_rates(item.choices, item.picks)]


def _agreement(pairs: list[MarkPair]) -> dict[str, Any] | None:
    if not pairs:
        return None
    rows = most_disputed(criteria_agreement(pairs))
    return {
        "pairs": len(pairs),
        **pooled_agreement(pairs),
        "criteria": [asdict(row) for row in rows],
    }


def _item(item: ItemRow, attempts: dict[int, AttemptRow], pairs: list[MarkPair]) -> dict[str, Any]:
    totals = [attempts[a].total for a in item.attempt_ids]
    choice_type = item.qtype in CHOICE_TYPES
    return {
        "question": item.question_id,
        "title": item.title,
        "type": item.qtype,
        "responses": len(item.scores),
        "omitted": omitted(item.picks) if choice_type else None,
        "mean_time_s": mean(item.seconds),
        "facility": facility(item.scores),
        "discrimination_index": discrimination_index(item.scores, totals),
        "item_total_correlation": corrected_item_total(item.points, totals),
        "choices": _choices(item),
        "agreement": _agreement(pairs),
    }


def _percentage(row: AttemptRow) -> float:
    return float(row.score * 100 / row.max_score)


def _distribution(graded: list[AttemptRow]) -> list[dict[str, int]]:
    counts = distribution([(a.score, a.max_score) for a in graded], BINS)
    return [
        {"from": 100 * i // BINS, "to": 100 * (i + 1) // BINS, "count": c}
        for i, c in enumerate(counts)
    ]


def quiz_statistics(quiz: Quiz, *, scope: str = AttemptScope.ALL) -> dict[str, Any]:
    """Facility, discrimination, item-total correlation, option rates, time, distribution
    and marker agreement for the quiz's attempts in scope (every one, or each student's
    first in time)."""
    scoped = in_scope(quiz_attempts(quiz), scope)
    graded = {pk: row for pk, row in scoped.items() if row.graded}
    rows = [graded[pk] for pk in sorted(graded)]
    percentages = [_percentage(a) for a in rows if a.max_score > 0]
    seconds = [a.seconds for a in rows if a.seconds is not None]
    pairs = double_marks(sorted(scoped))
    items = item_rows(sorted(graded))
    # A question whose every answer in scope waits for moderation still has its agreement.
    items.update(item_stubs([q for q in pairs if q not in items]))
    return {
        "quiz": quiz.pk,
        "scope": str(scope),
        "attempts": len(rows),
        "attempts_not_graded": len(scoped) - len(rows),
        "mean_percentage": mean(percentages),
        "median_percentage": median(percentages),
        "mean_time_s": mean(seconds),
        "distribution": _distribution(rows),
        "questions": [
            _item(item, graded, pairs.get(question, [])) for question, item in items.items()
        ],
    }

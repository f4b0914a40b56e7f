"""Per-quiz and per-question statistics from graded attempts, as plain dicts."""

from dataclasses import asdict
from typing import Any

from grading.statistics.agreement import (
    criterion_agreement,
    most_disputed,
    quadratic_weighted_kappa,
)
from grading.statistics.collect import AttemptRow, ItemRow, double_marks, graded_attempts, item_rows
from grading.statistics.items import (
    choice_rates,
    corrected_item_total,
    discrimination_index,
    distribution,
    facility,
    mean,
    median,
)
from grading.statistics.scope import AttemptScope, in_scope
from quizbank.models import Quiz

BINS = 10


def _choices(item: ItemRow) -> list[dict[str, Any]]:
    choices = item.content.get("choices", [])
    if item.qtype not in ("single_choice", "multiple_choice") or not choices:
        return []
    rates = choice_rates(item.picks, len(choices))
    return [
        {"choice": i, "text": str(c.get("text", "")), "correct": bool(c.get("correct")),
         "rate": rate}
        for i, (c, rate) in enumerate(zip(choices, rates, strict=True))
    ]  # fmt: skip


def _agreement(item: ItemRow, pairs: list[tuple[list[int], list[int]]]) -> dict[str, Any] | None:
    rubric = item.content.get("rubric", [])
    if not pairs or not rubric:
        return None
    rows = []
    for index, criterion in enumerate(rubric):
        levels = len(criterion.get("levels", []))
        usable = [(a[index], b[index]) for a, b in pairs if len(a) > index and len(b) > index]
        name = str(criterion.get("criterion", index))
        firsts, seconds = [a for a, _ in usable], [b for _, b in usable]
        rows.append(criterion_agreement(name, firsts, seconds, levels))
    pooled_a = [level for a, b in pairs if len(a) == len(b) for level in a]
    pooled_b = [level for a, b in pairs if len(a) == len(b) for level in b]
    widest = max(len(c.get("levels", [])) for c in rubric)
    return {"pairs": len(pairs), "kappa": quadratic_weighted_kappa(pooled_a, pooled_b, widest),
            "criteria": [asdict(row) for row in most_disputed(rows)]}  # fmt: skip


def _item(item: ItemRow, attempts: dict[int, AttemptRow], pairs: Any) -> dict[str, Any]:
    totals = [attempts[a].total for a in item.attempt_ids]
    return {
        "question": item.question_id,
        "title": item.title,
        "type": item.qtype,
        "responses": len(item.scores),
        "mean_time_s": mean(item.seconds),
        "facility": facility(item.scores),
        "discrimination_index": discrimination_index(item.scores, totals),
        "item_total_correlation": corrected_item_total(item.points, totals),
        "choices": _choices(item),
        "agreement": _agreement(item, pairs.get(item.question_id, [])),
    }


def quiz_statistics(quiz: Quiz, *, scope: str = AttemptScope.ALL) -> dict[str, Any]:
    """Facility, discrimination, item-total correlation, choice rates, time, distribution
    and marker agreement for the quiz's graded attempts (every one, or each student's first)."""
    attempts = in_scope(graded_attempts(quiz), scope)
    ids = sorted(attempts)
    percentages = [100 * a.total / a.maximum for a in attempts.values() if a.maximum > 0]
    seconds = [a.seconds for a in attempts.values() if a.seconds is not None]
    pairs = double_marks(ids)
    counts = distribution(percentages, BINS)
    return {
        "quiz": quiz.pk,
        "scope": str(scope),
        "attempts": len(ids),
        "mean_percentage": mean(percentages),
        "median_percentage": median(percentages),
        "mean_time_s": mean(seconds),
        "distribution": [
            {"from": 100 * i // BINS, "to": 100 * (i + 1) // BINS, "count": c}
            for i, c in enumerate(counts)
        ],  # fmt: skip
        "questions": [_item(item, attempts, pairs) for item in item_rows(ids).values()],
    }

"""Agreement between two markers on ordered rubric levels (pure functions).

Each criterion is its own scale: a criterion is identified by its name and its
number of levels, read from the rubric of the version each answer was marked on,
so criteria of 3 and of 4 levels (or a criterion whose levels changed between
versions) are never pooled on one scale.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MIN_PAIRS = 2
NOT_ENOUGH_DATA = "not_enough_data"
NO_SPREAD = "no_spread"
MIXED_SCALES = "mixed_scales"


def quadratic_weighted_kappa(
    first: Sequence[int], second: Sequence[int], levels: int
) -> float | None:
    """Cohen's kappa with weights (i - j)² / (k - 1)²; None when undefined (fewer than
    two pairs, fewer than two levels, or no spread in the expected disagreement)."""
    n = len(first)
    if n < MIN_PAIRS or n != len(second) or levels < 2:
        return None
    hist_a, hist_b = [0] * levels, [0] * levels
    observed = 0.0
    for a, b in zip(first, second, strict=True):
        hist_a[a] += 1
        hist_b[b] += 1
        observed += (a - b) ** 2
    expected = sum(
        (i - j) ** 2 * hist_a[i] * hist_b[j] / n for i in range(levels) for j in range(levels)
    )
    if expected == 0:
        return None
    # The common 1/(k-1)² factor of the weights cancels in the ratio.
    return 1 - observed / expected


@dataclass(frozen=True)
class MarkPair:
    """The first and second marker's levels on one answer, with its version's rubric."""

    first: list[int]
    second: list[int]
    rubric: list[dict[str, Any]]


def kappa_note(pairs: int, kappa: float | None) -> str | None:
    """Why kappa is null: fewer than two pairs, or no spread in the levels used."""
    if pairs < MIN_PAIRS:
        return NOT_ENOUGH_DATA
    return NO_SPREAD if kappa is None else None


@dataclass(frozen=True)
class CriterionAgreement:
    criterion: str
    levels: int
    pairs: int
    kappa: float | None
    kappa_note: str | None
    mean_abs_difference: float
    disagreement_rate: float


def criterion_agreement(
    name: str, first: Sequence[int], second: Sequence[int], levels: int
) -> CriterionAgreement:
    """How two markers' levels on one criterion compare."""
    gaps = [abs(a - b) for a, b in zip(first, second, strict=True)]
    count = len(gaps)
    kappa = quadratic_weighted_kappa(first, second, levels)
    return CriterionAgreement(
        criterion=name,
        levels=levels,
        pairs=count,
        kappa=kappa,
        kappa_note=kappa_note(count, kappa),
        mean_abs_difference=sum(gaps) / count if count else 0.0,
        disagreement_rate=sum(1 for gap in gaps if gap) / count if count else 0.0,
    )


def _scales(pairs: Sequence[MarkPair]) -> dict[tuple[str, int], list[tuple[int, int]]]:
    """(criterion name, number of levels) -> (first, second) levels, in rubric order."""
    scales: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for pair in pairs:
        for index, criterion in enumerate(pair.rubric):
            levels = len(criterion.get("levels", []))
            if index >= min(len(pair.first), len(pair.second)):
                continue
            a, b = pair.first[index], pair.second[index]
            if 0 <= a < levels and 0 <= b < levels:
                key = (str(criterion.get("criterion", index)), levels)
                scales.setdefault(key, []).append((a, b))
    return scales


def criteria_agreement(pairs: Sequence[MarkPair]) -> list[CriterionAgreement]:
    """One row per criterion scale over the answers' own rubrics."""
    return [
        criterion_agreement(name, [a for a, _ in rows], [b for _, b in rows], levels)
        for (name, levels), rows in _scales(pairs).items()
    ]


def pooled_agreement(pairs: Sequence[MarkPair]) -> dict[str, Any]:
    """Kappa over every criterion at once, defined only when all share one scale."""
    scales = _scales(pairs)
    if len({levels for _, levels in scales}) > 1:
        return {"kappa": None, "kappa_note": MIXED_SCALES}
    firsts = [a for rows in scales.values() for a, _ in rows]
    seconds = [b for rows in scales.values() for _, b in rows]
    levels = next(iter(scales))[1] if scales else 0
    kappa = quadratic_weighted_kappa(firsts, seconds, levels) if len(pairs) >= MIN_PAIRS else None
    return {"kappa": kappa, "kappa_note": kappa_note(len(pairs), kappa)}


def most_disputed(rows: Sequence[CriterionAgreement]) -> list[CriterionAgreement]:
    """Criteria ordered from most to least disagreement (mean gap, then rate, then name)."""
    return sorted(rows, key=lambda r: (-r.mean_abs_difference, -r.disagreement_rate, r.criterion))

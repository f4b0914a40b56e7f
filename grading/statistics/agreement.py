"""Agreement between two markers on ordered rubric levels (pure functions)."""

from collections.abc import Sequence
from dataclasses import dataclass


def quadratic_weighted_kappa(
    first: Sequence[int], second: Sequence[int], levels: int
) -> float | None:
    """Cohen's kappa with weights (i - j)² / (k - 1)²; None when undefined (no pairs,
    fewer than two levels, or no spread in the expected disagreement)."""
    n = len(first)
    if n == 0 or n != len(second) or levels < 2:
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
class CriterionAgreement:
    criterion: str
    pairs: int
    kappa: float | None
    mean_abs_difference: float
    disagreement_rate: float


def criterion_agreement(
    name: str, first: Sequence[int], second: Sequence[int], levels: int
) -> CriterionAgreement:
    """How two markers' levels on one criterion compare."""
    gaps = [abs(a - b) for a, b in zip(first, second, strict=True)]
    count = len(gaps)
    return CriterionAgreement(
        criterion=name,
        pairs=count,
        kappa=quadratic_weighted_kappa(first, second, levels),
        mean_abs_difference=sum(gaps) / count if count else 0.0,
        disagreement_rate=sum(1 for gap in gaps if gap) / count if count else 0.0,
    )


def most_disputed(rows: Sequence[CriterionAgreement]) -> list[CriterionAgreement]:
    """Criteria ordered from most to least disagreement (mean gap, then rate, then name)."""
    return sorted(rows, key=lambda r: (-r.mean_abs_difference, -r.disagreement_rate, r.criterion))

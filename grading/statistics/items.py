"""Classical item statistics (pure functions over plain sequences).

Scores are shares of the marks in [0, 1]; totals are attempt totals in points.
Functions return None where a statistic is undefined (too few values, no spread).
"""

import math
from collections.abc import Sequence
from decimal import Decimal

UPPER_LOWER_PERCENT = 27


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def median(values: Sequence[float]) -> float | None:
    if not values:
        return None
    ordered, middle = sorted(values), len(values) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def facility(scores: Sequence[float]) -> float | None:
    """Mean share of the marks earned on the item (1.0: everyone got it right)."""
    return mean(scores)


def group_size(n: int, percent: int = UPPER_LOWER_PERCENT) -> int:
    """round(n × percent / 100), halves rounded up, computed on integers; at least one."""
    return max(1, (n * percent + 50) // 100)


def discrimination_index(
    scores: Sequence[float], totals: Sequence[float], percent: int = UPPER_LOWER_PERCENT
) -> float | None:
    """Mean item score of the top `percent` % of attempts by total minus that of the bottom.

    Groups hold `group_size(n)` attempts; among equal totals the earlier input ranks lower.
    """
    if len(scores) != len(totals) or len(scores) < 2:
        return None
    size = group_size(len(scores), percent)
    order = sorted(range(len(scores)), key=lambda i: totals[i])
    lower = [scores[i] for i in order[:size]]
    upper = [scores[i] for i in order[-size:]]
    return sum(upper) / size - sum(lower) / size


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's correlation; None with fewer than two pairs or no spread."""
    if len(xs) != len(ys) or len(xs) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def corrected_item_total(item_points: Sequence[float], totals: Sequence[float]) -> float | None:
    """Correlation of the item with the rest of the test (total minus this item's points)."""
    rest = [total - item for item, total in zip(item_points, totals, strict=True)]
    return pearson(item_points, rest)


def choice_rates(picks: Sequence[Sequence[int]], choice_count: int) -> list[float]:
    """Share of answers that picked each choice (a multiple-choice answer may pick several)."""
    if not picks:
        return [0.0] * choice_count
    counts = [0] * choice_count
    for picked in picks:
        for index in set(picked):
            if 0 <= index < choice_count:
                counts[index] += 1
    return [count / len(picks) for count in counts]


def distribution(totals: Sequence[tuple[Decimal, Decimal]], bins: int = 10) -> list[int]:
    """Counts of (score, maximum) pairs in equal bins of the percentage over [0, 100).

    Bin i holds i × 100/bins <= percentage < (i + 1) × 100/bins, decided on the exact
    decimals (2.300 of 5.750 is 40%, never 39.999…); 100% falls in the last bin.
    Pairs with no maximum are left out.
    """
    counts = [0] * bins
    for score, maximum in totals:
        if maximum <= 0:
            continue
        index = min(bins - 1, max(0, int(score * bins // maximum)))
        counts[index] += 1
    return counts

"""The result of scoring one answer."""

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Verdict:
    """`score` is the share of the marks earned in [0, 1]; `feedback` is shown on release."""

    score: float
    feedback: dict[str, Any] = field(default_factory=dict)


class UnscorableQuestion(ValueError):
    """The stored question itself cannot be scored (a value a rule added since refuses),
    whatever the answer: an examiner sees it, the student is not marked on it."""


def clamp(value: float) -> float:
    """`value` within [0, 1]; NaN, which every comparison passes over, counts as 0."""
    if math.isnan(value):
        return 0.0
    return max(0.0, min(1.0, value))

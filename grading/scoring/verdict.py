"""The result of scoring one answer."""

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Verdict:
    """`score` is the share of the marks earned in [0, 1]; `feedback` is shown on release."""

    score: float
    feedback: dict[str, Any] = field(default_factory=dict)


def clamp(value: float) -> float:
    return max(0.0, min(1.0, value))

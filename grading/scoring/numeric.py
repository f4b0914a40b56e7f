"""Numeric answers: a list of accepted values with tolerances; the first match wins."""

import math
from typing import Any

from grading.scoring.verdict import Verdict, clamp


def parse_number(raw: object) -> float:
    """A float from a JSON number or a numeric string; ValueError otherwise."""
    if isinstance(raw, bool):
        raise ValueError("a number is required, not true/false")
    if isinstance(raw, int | float):
        value = float(raw)
    elif isinstance(raw, str):
        value = float(raw.strip().replace(",", "."))
    else:
        raise ValueError("a number is required")
    if not math.isfinite(value):
        raise ValueError("the number must be finite")
    return value


def _matches(value: float, accepted: dict[str, Any]) -> bool:
    target = parse_number(accepted["value"])
    tolerance = float(accepted.get("tolerance", 0) or 0)
    if accepted.get("tolerance_mode", "absolute") == "relative":
        tolerance *= abs(target)
    # A tiny slack so that 0.1 + 0.2 style rounding never fails an exact answer.
    return abs(value - target) <= tolerance + 1e-12 * max(1.0, abs(target))


def score_numeric(content: dict[str, Any], answer: dict[str, Any]) -> Verdict:
    """The fraction of the first accepted answer within tolerance, else zero."""
    value = parse_number(answer["value"])
    for accepted in content.get("answers", []):
        if _matches(value, accepted):
            text = str(accepted.get("feedback", ""))
            return Verdict(clamp(float(accepted.get("fraction", 1.0))), {"answer": text})
    return Verdict(0.0, {})

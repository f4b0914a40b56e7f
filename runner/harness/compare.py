"""Tolerance-aware comparison of decoded values (supervisor side).

Works on tensors (TensorValue), Python scalars, strings, None and nested
lists/tuples/dicts of them. The first difference found gives the message,
naming the value, e.g. `the output has shape (4,), expected (4, 3)` or
`the gradient of x differs at index (1, 2) by 0.31, more than atol 1e-05 allows`.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from runner.harness.compare_tensors import compare_tensors
from runner.harness.outcome import Outcome, Tolerance, got_and_expected, worst
from runner.harness.payload import Rejected, TensorValue

__all__ = ["Outcome", "Tolerance", "compare", "describe_kind", "exact"]


def exact(tolerance: Tolerance) -> Tolerance:
    """Bit-for-bit equality (NaN equal to NaN), same dtype."""
    return replace(tolerance, rtol=0.0, atol=0.0, equal_nan=True, dtype="strict")


def describe_kind(value: Any) -> str:
    if isinstance(value, TensorValue):
        return "a tensor"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, Rejected):
        return value.reason
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def compare(got: Any, expected: Any, tolerance: Tolerance, label: str = "the value") -> Outcome:
    """Compare `got` (the answer's value) with `expected` (the reference's); `label` names it."""
    if isinstance(got, Rejected):
        return Outcome(False, f"{label} is {got.reason}, expected {describe_kind(expected)}")
    if isinstance(expected, TensorValue):
        if not isinstance(got, TensorValue):
            return Outcome(False, f"{label} is {describe_kind(got)}, expected a tensor")
        return compare_tensors(got, expected, tolerance, label)
    if isinstance(expected, list | tuple):
        return _sequence(got, expected, tolerance, label)
    if isinstance(expected, dict):
        return _mapping(got, expected, tolerance, label)
    return _scalar(got, expected, tolerance, label)


def _mismatched_kind(got: Any, expected: Any, label: str) -> Outcome:
    return Outcome(False, f"{label} is {describe_kind(got)}, expected {describe_kind(expected)}")


def _sequence(
    got: Any, expected: list[Any] | tuple[Any, ...], tol: Tolerance, label: str
) -> Outcome:
    if not isinstance(got, list | tuple):
        return _mismatched_kind(got, expected, label)
    if tol.dtype == "strict" and type(got) is not type(expected):
        return _mismatched_kind(got, expected, label)
    if len(got) != len(expected):
        # The container's kind keeps a plural label grammatical: "the losses list has 2 items".
        kind = "list" if isinstance(got, list) else "tuple"
        return Outcome(False, f"{label} {kind} has {_items(len(got))}, expected {len(expected)}")
    pairs = enumerate(zip(got, expected, strict=True))
    return worst([compare(g, e, tol, f"{label}[{i}]") for i, (g, e) in pairs])


def _mapping(got: Any, expected: dict[str, Any], tol: Tolerance, label: str) -> Outcome:
    if not isinstance(got, dict):
        return _mismatched_kind(got, expected, label)
    if set(got) != set(expected):
        return Outcome(False, f"{label} has keys {sorted(got)}, expected {sorted(expected)}")
    return worst([compare(got[k], expected[k], tol, f"{label}[{k!r}]") for k in expected])


def _scalar(got: Any, expected: Any, tol: Tolerance, label: str) -> Outcome:
    numbers = (int, float)
    if type(expected) in numbers and type(got) in numbers:
        if type(got) is not type(expected) and tol.dtype == "strict":
            return _mismatched_kind(got, expected, label)
        return _number(float(got), float(expected), tol, label)
    if type(got) is not type(expected):
        return _mismatched_kind(got, expected, label)
    if got != expected:
        return Outcome(False, f"{label} is {_short(got)}, expected {_short(expected)}")
    return Outcome(True)


def _number(got: float, expected: float, tol: Tolerance, label: str) -> Outcome:
    if got != got or expected != expected:  # NaN
        both = got != got and expected != expected
        ok = both and tol.equal_nan
        return Outcome(ok, "" if ok else f"{label} is {got!r}, expected {expected!r}")
    if got == expected:
        return Outcome(True, max_abs=0.0, max_rel=0.0)
    error = abs(got - expected)
    if math.isinf(error):  # an infinity, as for tensors: no errors to report (nor to store)
        return Outcome(False, f"{label} is {got!r}, expected {expected!r}")
    # No relative error where 0 is expected, as for tensors (inf is no JSON to store).
    relative = error / abs(expected) if expected else 0.0
    if error <= tol.atol + tol.rtol * abs(expected):
        return Outcome(True, max_abs=error, max_rel=relative)
    return Outcome(
        False,
        f"{label} is off by {error:.3g}, more than {tol.describe()} allows",
        max_abs=error,
        max_rel=relative,
        detail=got_and_expected(got, expected),
    )


def _items(count: int) -> str:
    return f"{count} item" if count == 1 else f"{count} items"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."

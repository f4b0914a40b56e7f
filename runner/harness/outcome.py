"""Comparison settings and results shared by the comparison modules."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from runner.types import FAILURE_KINDS

__all__ = [
    "FAILURE_KINDS",
    "Outcome",
    "Tolerance",
    "distinguishable",
    "got_and_expected",
    "worst",
]


@dataclass(frozen=True)
class Tolerance:
    rtol: float = 1e-5
    atol: float = 1e-8
    dtype: str = "strict"  # strict or promotable
    equal_nan: bool = False
    check_device: bool = False

    @classmethod
    def merged(cls, base: Any, overrides: dict[str, Any]) -> Tolerance:
        """The question's CompareSettings with a case's `compare` overrides applied."""
        fields = {name: getattr(base, name) for name in cls.__dataclass_fields__}
        fields.update(overrides)
        return cls(
            rtol=float(fields["rtol"]),
            atol=float(fields["atol"]),
            dtype=str(fields["dtype"]),
            equal_nan=bool(fields["equal_nan"]),
            check_device=bool(fields["check_device"]),
        )

    def describe(self) -> str:
        if self.rtol:
            return f"atol {self.atol:g} + rtol {self.rtol:g} × |expected|"
        return f"atol {self.atol:g}"


@dataclass(frozen=True)
class Outcome:
    ok: bool
    message: str = ""
    max_abs: float | None = None
    max_rel: float | None = None
    detail: str = ""  # a brief look at the values, shown for visible cases only
    kind: str = "output"  # a key of FAILURE_KINDS, for failures

    def as_kind(self, kind: str) -> Outcome:
        return self if self.ok else replace(self, kind=kind)

    @property
    def clause(self) -> str:
        """The message followed by its own look at the values, for a visible case."""
        return f"{self.message} ({self.detail})" if self.detail else self.message


def worst(outcomes: list[Outcome]) -> Outcome:
    """Combine parts: the first failure decides the message; errors are the maxima."""
    abs_errors = [o.max_abs for o in outcomes if o.max_abs is not None]
    rel_errors = [o.max_rel for o in outcomes if o.max_rel is not None]
    failed = next((o for o in outcomes if not o.ok), None)
    return Outcome(
        ok=failed is None,
        message=failed.message if failed else "",
        max_abs=max(abs_errors) if abs_errors else None,
        max_rel=max(rel_errors) if rel_errors else None,
        detail=failed.detail if failed else "",
        kind=failed.kind if failed else "output",
    )


def got_and_expected(got: float, expected: float) -> str:
    """`got X, expected Y`, the two told apart as `distinguishable` shows them."""
    shown_got, shown_expected = distinguishable(got, expected)
    return f"got {shown_got}, expected {shown_expected}"


def distinguishable(*numbers: float, least: int = 6) -> list[str]:
    """The numbers with `least` significant digits or as many more as it takes for any two
    different ones to read differently (17 tell any two doubles apart)."""
    for digits in range(least, 18):
        shown = [f"{number:.{digits}g}" for number in numbers]
        if all(
            shown[i] != shown[j]
            for i in range(len(numbers))
            for j in range(i)
            if numbers[i] != numbers[j]
        ):
            break
    return shown

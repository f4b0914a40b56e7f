"""Helpers shared by the supervisor's judges."""

from __future__ import annotations

from typing import Any, TypeVar

from runner.harness.payload import Rejected, TensorValue
from runner.harness.results import CaseRecord

T = TypeVar("T")


class ReferenceFailure(Exception):
    """The reference solution (not the answer) failed: the question needs fixing."""


def _first_of(value: Any, kind: type[T]) -> T | None:
    """The first `kind` found depth-first in a nest of lists, tuples and dicts."""
    if isinstance(value, kind):
        return value
    items: list[Any] = []
    if isinstance(value, list | tuple):
        items = list(value)
    elif isinstance(value, dict):
        items = list(value.values())
    for item in items:
        found = _first_of(item, kind)
        if found is not None:
            return found
    return None


def contains_rejected(value: Any) -> Rejected | None:
    return _first_of(value, Rejected)


def reference_value(reference: CaseRecord, key: str, case_number: int) -> Any:
    """A value the reference must have produced; ReferenceFailure if it is missing or bad."""
    if key not in reference.values:
        raise ReferenceFailure(f"case {case_number}: the reference produced no {key}")
    value = reference.values[key]
    bad = contains_rejected(value)
    if bad is not None:
        raise ReferenceFailure(f"case {case_number}: the reference's {key} is {bad.reason}")
    return value


def student_value(student: CaseRecord, key: str) -> Any:
    return student.values.get(key, Rejected("nothing (this check produced no data)"))


def first_tensor(value: Any) -> TensorValue | None:
    return _first_of(value, TensorValue)

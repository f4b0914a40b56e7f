"""Helpers shared by the supervisor's judges: reference data, and names for what differs."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any, TypeVar

from runner.harness.payload import Rejected, TensorValue
from runner.harness.results import CaseRecord
from runner.harness.spec import Case

T = TypeVar("T")


class ReferenceFailure(Exception):
    """The reference solution (not the answer) failed: the question needs fixing."""


def _each_of(value: Any, kind: type[T]) -> Iterator[T]:
    """Each `kind` found depth-first, in order, in a nest of lists, tuples and dicts."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, kind):
            yield item
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))


def _first_of(value: Any, kind: type[T]) -> T | None:
    return next(_each_of(value, kind), None)


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


def each_tensor(value: Any) -> list[TensorValue]:
    """The tensors of an output (a tuple's, a dict's), in order."""
    return list(_each_of(value, TensorValue))


def parameter_names(source: str, entry_point: str) -> list[str]:
    """The entry point's positional parameter names in `source` (a Function's forward, less
    ctx), or [] when they cannot be read."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return [arg.arg for arg in node.args.args]
        if isinstance(node, ast.ClassDef) and node.name == entry_point:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "forward":
                    return [arg.arg for arg in item.args.args[1:]]
    return []


def argument_labels(case: Case, names: list[str]) -> list[tuple[str, bool]]:
    """(label, requires_grad) for every tensor of the case's inputs, in the order the child
    collects them: `x`, `weights[1]`, `argument 3`."""
    found: list[tuple[str, bool]] = []
    for index, spec in enumerate(case.args):
        base = names[index] if index < len(names) else f"argument {index + 1}"
        _collect(spec, base, found)
    for key, spec in case.kwargs.items():
        _collect(spec, key, found)
    return found


def _collect(spec: Any, label: str, found: list[tuple[str, bool]]) -> None:
    if isinstance(spec, list):
        for index, item in enumerate(spec):
            _collect(item, f"{label}[{index}]", found)
    elif isinstance(spec, dict) and ("tensor" in spec or "random" in spec):
        found.append((label, bool(spec.get("requires_grad", False))))
    elif isinstance(spec, dict):
        for key, item in spec.items():
            _collect(item, f"{label}[{key!r}]", found)

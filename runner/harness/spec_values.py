"""Validation of case values: literals, `{tensor: ...}` and `{random: ...}`."""

from __future__ import annotations

import math
from typing import Any

DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64", "bool")
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
DISTRIBUTIONS = ("normal", "uniform", "randint", "bernoulli")
MAX_RANDOM_NUMEL = 10_000_000
MAX_DEPTH = 16

Path = tuple[str | int, ...]

# In the order bank files write them.
TENSOR_KEYS = ("tensor", "dtype", "requires_grad", "contiguous")
RANDOM_KEYS = (
    "random",
    "dtype",
    "distribution",
    "low",
    "high",
    "scale",
    "requires_grad",
    "contiguous",
)


# The most one case or training stage may weigh: weights are shares of the score, and a sum
# past any float would make every score NaN.
MAX_WEIGHT = 1000


class CaseError(ValueError):
    """A case in a question is invalid; `path` locates the field."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{format_path(path)}: {message}")
        self.path = path
        self.detail = message


def format_path(path: Path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def validate_value(value: Any, path: Path, depth: int = 0) -> None:
    """Raise CaseError unless `value` is a literal, a tensor spec or a random spec."""
    if depth > MAX_DEPTH:
        raise CaseError(path, f"nested deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, bool | int | float | str):
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            validate_value(item, (*path, index), depth + 1)
        return
    if not isinstance(value, dict):
        raise CaseError(path, f"unsupported value of type {type(value).__name__}")
    if "tensor" in value:
        _validate_tensor(value, path)
    elif "random" in value:
        _validate_random(value, path)
    else:
        # A plain mapping is refused: it is almost always a misspelt tensor or random value.
        raise CaseError(path, "a mapping value needs exactly one of tensor or random")


def _check_keys(spec: dict[str, Any], allowed: set[str], path: Path) -> None:
    unknown = sorted(set(spec) - allowed)
    if unknown:
        raise CaseError(
            (*path, unknown[0]), f"unknown field; allowed: {', '.join(sorted(allowed))}"
        )


def _check_dtype(spec: dict[str, Any], path: Path) -> None:
    dtype = spec.get("dtype", "float32")
    if dtype not in DTYPES:
        raise CaseError(
            (*path, "dtype"), f"unknown dtype {dtype!r}; use one of {', '.join(DTYPES)}"
        )
    if not isinstance(spec.get("requires_grad", False), bool):
        raise CaseError((*path, "requires_grad"), "must be true or false")
    if spec.get("requires_grad") and dtype not in FLOAT_DTYPES:
        raise CaseError(
            (*path, "requires_grad"), f"only floating tensors can require grad, not {dtype}"
        )
    if not isinstance(spec.get("contiguous", True), bool):
        raise CaseError((*path, "contiguous"), "must be true or false")


def _check_layout(spec: dict[str, Any], shape: tuple[int, ...], path: Path) -> None:
    # Reversed axis order is a layout other than the contiguous one only where at least two
    # axes are longer than 1; elsewhere the case would quietly test nothing.
    if spec.get("contiguous", True) is False and sum(n > 1 for n in shape) < 2:
        raise CaseError(
            (*path, "contiguous"),
            "contiguous: false needs at least two axes longer than 1 to lay out otherwise",
        )


def _validate_tensor(spec: dict[str, Any], path: Path) -> None:
    _check_keys(spec, set(TENSOR_KEYS), path)
    _check_dtype(spec, path)
    shape = _shape_of(spec["tensor"])
    if shape is None:
        raise CaseError(
            (*path, "tensor"), "must be a number or a rectangular nested list of numbers"
        )
    _check_layout(spec, shape, path)


def _shape_of(data: object, depth: int = 0) -> tuple[int, ...] | None:
    """The shape of nested lists of numbers, or None if they are ragged or not numbers."""
    if isinstance(data, bool) or is_number(data):
        return ()
    if not isinstance(data, list) or depth >= MAX_DEPTH:
        return None
    shapes = {_shape_of(item, depth + 1) for item in data}
    if None in shapes or len(shapes) > 1:
        return None
    inner = shapes.pop() if shapes else ()
    return None if inner is None else (len(data), *inner)


def _validate_random(spec: dict[str, Any], path: Path) -> None:
    _check_keys(spec, set(RANDOM_KEYS), path)
    shape = spec["random"]
    if not isinstance(shape, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape
    ):
        raise CaseError((*path, "random"), "must be a shape: a list of non-negative integers")
    if math.prod(shape) > MAX_RANDOM_NUMEL:
        raise CaseError((*path, "random"), f"more than {MAX_RANDOM_NUMEL} elements")
    distribution = spec.get("distribution", "normal")
    if distribution not in DISTRIBUTIONS:
        raise CaseError(
            (*path, "distribution"),
            f"unknown distribution {distribution!r}; use one of {', '.join(DISTRIBUTIONS)}",
        )
    for key in ("low", "high", "scale"):
        if key in spec and not is_number(spec[key]):
            raise CaseError((*path, key), "must be a number")
    _check_dtype(spec, path)
    _check_layout(spec, tuple(shape), path)
    _check_random_range(spec, path, distribution)


def _check_random_range(spec: dict[str, Any], path: Path, distribution: str) -> None:
    if distribution in ("uniform", "randint"):
        low, high = spec.get("low", 0), spec.get("high", 1 if distribution == "uniform" else 10)
        if not low < high:
            raise CaseError((*path, "high"), f"high ({high}) must be greater than low ({low})")
    if distribution == "bernoulli" and not 0 <= spec.get("scale", 0.5) <= 1:
        raise CaseError((*path, "scale"), "a bernoulli probability must lie in [0, 1]")
    dtype = spec.get("dtype")
    if distribution in ("normal", "uniform") and dtype is not None and dtype not in FLOAT_DTYPES:
        raise CaseError((*path, "dtype"), f"a {distribution} tensor needs a floating dtype")

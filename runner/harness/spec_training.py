"""Validation of `kind: training` cases: tiny model, data, loss, optimizer, stages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runner.harness.spec_values import MAX_WEIGHT, CaseError, Path, is_number, validate_value

STAGES = ("runs", "loss_decreases", "matches_reference")
LOSSES = ("mse", "bce_with_logits")
OPTIMIZERS = ("sgd", "adam")
MAX_STEPS = 1000
MAX_WIDTH = 4096


@dataclass(frozen=True)
class Stage:
    check: str  # runs, loss_decreases or matches_reference
    weight: float
    tolerance: float


@dataclass(frozen=True)
class Training:
    model: str  # linear or mlp
    sizes: list[int]
    x: Any
    y: Any
    loss: str  # mse or bce_with_logits
    optimizer: str  # sgd or adam
    lr: float
    steps: int
    stages: list[Stage]
    # An mlp's hidden layers batch-normalised (no affine parameters): training mode normalises
    # by the batch, evaluation mode by the running statistics, so the two give other losses.
    batch_norm: bool = False


def parse_training(raw: dict[str, Any], path: Path) -> Training:
    """Parse the training fields of a case; raises CaseError naming the field."""
    for key in ("args", "kwargs", "checks", "compare_output"):
        if key in raw:
            raise CaseError((*path, key), "not used by a training case")
    model, sizes, batch_norm = _parse_model(raw.get("model"), (*path, "model"))
    x, y = _parse_data(raw.get("data"), (*path, "data"))
    loss = raw.get("loss", "mse")
    if loss not in LOSSES:
        raise CaseError((*path, "loss"), f"unknown loss {loss!r}; use one of {', '.join(LOSSES)}")
    optimizer, lr = _parse_optimizer(raw.get("optimizer", {"sgd": {"lr": 0.1}}), path)
    steps = raw.get("steps", 10)
    if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= MAX_STEPS:
        raise CaseError((*path, "steps"), f"must be an integer from 1 to {MAX_STEPS}")
    stages = _parse_stages(raw.get("stages"), (*path, "stages"))
    return Training(model, sizes, x, y, loss, optimizer, lr, steps, stages, batch_norm)


def _parse_model(raw: object, path: Path) -> tuple[str, list[int], bool]:
    options = (
        {key: raw[key] for key in ("batch_norm",) if key in raw} if isinstance(raw, dict) else {}
    )
    layers = (
        {key: value for key, value in raw.items() if key not in options}
        if isinstance(raw, dict)
        else {}
    )
    if not isinstance(raw, dict) or len(layers) != 1:
        raise CaseError(path, "must be {linear: [IN, OUT]} or {mlp: [IN, HIDDEN..., OUT]}")
    kind, sizes = next(iter(layers.items()))
    batch_norm = options.get("batch_norm", False)
    if not isinstance(batch_norm, bool) or (batch_norm and kind != "mlp"):
        raise CaseError((*path, "batch_norm"), "must be true or false, and true only for an mlp")
    if kind not in ("linear", "mlp"):
        raise CaseError((*path, str(kind)), "unknown model; use linear or mlp")
    valid = isinstance(sizes, list) and all(
        isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_WIDTH for n in sizes
    )
    if not valid or len(sizes) < 2 or (kind == "linear" and len(sizes) != 2):
        raise CaseError(
            (*path, kind), f"sizes must be 2 (linear) or >= 2 (mlp) integers 1..{MAX_WIDTH}"
        )
    return kind, sizes, batch_norm


def _parse_data(raw: object, path: Path) -> tuple[Any, Any]:
    if not isinstance(raw, dict) or set(raw) != {"x", "y"}:
        raise CaseError(path, "must be a mapping with x and y")
    for key in ("x", "y"):
        value = raw[key]
        validate_value(value, (*path, key))
        if not isinstance(value, dict) or not ({"tensor", "random"} & set(value)):
            raise CaseError((*path, key), "must be a {tensor: ...} or {random: ...} value")
    return raw["x"], raw["y"]


def _parse_optimizer(raw: object, path: Path) -> tuple[str, float]:
    path = (*path, "optimizer")
    if not isinstance(raw, dict) or len(raw) != 1:
        raise CaseError(path, "must be {sgd: {lr: ...}} or {adam: {lr: ...}}")
    name, options = next(iter(raw.items()))
    if name not in OPTIMIZERS:
        raise CaseError((*path, str(name)), "unknown optimizer; use sgd or adam")
    if not isinstance(options, dict) or set(options) - {"lr"}:
        raise CaseError((*path, name), "the only option is lr")
    lr = options.get("lr", 0.1 if name == "sgd" else 0.01)
    if not is_number(lr) or lr <= 0:
        raise CaseError((*path, name, "lr"), "must be a positive number")
    return name, float(lr)


def _parse_stages(raw: object, path: Path) -> list[Stage]:
    if raw is None:
        return [Stage("runs", 1.0, 0.0), Stage("loss_decreases", 1.0, 0.0)]
    if not isinstance(raw, list) or not raw:
        raise CaseError(path, "must be a non-empty list of {check: ..., weight: ...}")
    return [_parse_stage(item, (*path, index)) for index, item in enumerate(raw)]


def _parse_stage(raw: object, path: Path) -> Stage:
    if not isinstance(raw, dict) or raw.get("check") not in STAGES:
        raise CaseError((*path, "check"), f"must be one of {', '.join(STAGES)}")
    unknown = sorted(set(raw) - {"check", "weight", "tolerance"})
    if unknown:
        raise CaseError((*path, unknown[0]), "unknown field")
    weight, tolerance = raw.get("weight", 1), raw.get("tolerance", 0.0)
    if not is_number(weight) or not 0 <= weight <= MAX_WEIGHT:
        raise CaseError((*path, "weight"), f"must be a number from 0 to {MAX_WEIGHT}")
    if not is_number(tolerance) or not 0 <= tolerance < 1:
        raise CaseError((*path, "tolerance"), "must be a number in [0, 1)")
    return Stage(raw["check"], float(weight), float(tolerance))

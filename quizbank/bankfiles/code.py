"""Validation of code questions: settings, cases, value forms and checks."""

from __future__ import annotations

from typing import Any

from quizbank.bankfiles import schema
from quizbank.bankfiles.checker import Checker
from quizbank.bankfiles.source import FieldPath


def check_code(check: Checker, data: dict[str, Any], *, rows: bool) -> None:
    """The code-question rules of docs/bank-format.md (cases only when `rows`)."""
    entry = check.text(data, "entry_point", (), required=True)
    if entry is not None and not entry.isidentifier():
        check.error(("entry_point",), "must be a Python identifier")
    check.text(data, "starter_code", ())
    check.choice(data, "device", (), schema.DEVICES)
    _check_limits(check, data)
    _check_compare(check, data.get("compare"), ("compare",))
    for index, name in enumerate(check.text_list(data, "forbidden", ())):
        if isinstance(name, str) and not schema.QUALIFIED_NAME_RE.match(name):
            check.error(("forbidden", index), "must be a qualified name such as torch.softmax")
    efficiency = _sub_mapping(check, data, "efficiency", schema.EFFICIENCY_KEYS)
    for key in schema.EFFICIENCY_KEYS:
        check.number(efficiency, key, ("efficiency",), positive=True)
    if rows:
        _check_cases(check, data, has_efficiency=bool(efficiency))


def _sub_mapping(
    check: Checker, data: dict[str, Any], key: str, allowed: tuple[str, ...]
) -> dict[str, Any]:
    if key not in data:
        return {}
    value = check.mapping(data[key], (key,), key)
    if value is None:
        return {}
    check.keys(value, (key,), allowed)
    return value


def _check_limits(check: Checker, data: dict[str, Any]) -> None:
    limits = _sub_mapping(check, data, "limits", schema.LIMIT_KEYS)
    check.number(limits, "time_s", ("limits",), positive=True)
    check.number(limits, "memory_mb", ("limits",), positive=True, integer=True)
    check.number(limits, "output_kb", ("limits",), positive=True, integer=True)


def _check_compare(check: Checker, value: object, path: FieldPath) -> None:
    if value is None:
        return
    compare = check.mapping(value, path, "compare")
    if compare is None:
        return
    check.keys(compare, path, schema.COMPARE_KEYS)
    check.number(compare, "rtol", path, minimum=0)
    check.number(compare, "atol", path, minimum=0)
    check.choice(compare, "dtype", path, schema.COMPARE_DTYPE_RULES)
    check.boolean(compare, "equal_nan", path)
    check.boolean(compare, "check_device", path)


def _check_cases(check: Checker, data: dict[str, Any], *, has_efficiency: bool) -> None:
    cases = check.items(data, "cases", ())
    names: set[str] = set()
    for index, item in enumerate(cases or []):
        path: FieldPath = ("cases", index)
        case = check.mapping(item, path, "a case")
        if case is None:
            continue
        name = check.text(case, "name", path, required=True, max_length=schema.MAX_CASE_NAME)
        if name in names:
            check.error((*path, "name"), "two cases have this name")
        names.add(name or "")
        check.number(case, "weight", path, minimum=0)
        check.boolean(case, "hidden", path)
        check.number(case, "seed", path, minimum=0, integer=True)
        check.choice(case, "kind", path, schema.CASE_KINDS)
        if case.get("kind") == "training":
            check.keys(case, path, schema.TRAINING_CASE_KEYS)
            _check_training(check, case, path)
        else:
            check.keys(case, path, schema.CALL_CASE_KEYS)
            _check_call(check, case, path, has_efficiency=has_efficiency)


def _check_call(
    check: Checker, case: dict[str, Any], path: FieldPath, *, has_efficiency: bool
) -> None:
    args = case.get("args", [])
    if not isinstance(args, list):
        check.error((*path, "args"), "must be a list of values")
    else:
        for index, value in enumerate(args):
            check_value(check, value, (*path, "args", index))
    kwargs = case.get("kwargs", {})
    if not isinstance(kwargs, dict):
        check.error((*path, "kwargs"), "must be a mapping of argument names to values")
    else:
        for key, value in kwargs.items():
            if not str(key).isidentifier():
                check.error((*path, "kwargs", str(key)), "must be a Python identifier")
            check_value(check, value, (*path, "kwargs", str(key)))
    checks = case.get("checks", [])
    if not isinstance(checks, list):
        check.error((*path, "checks"), "must be a list of checks")
    else:
        for index, item in enumerate(checks):
            _check_check(check, item, (*path, "checks", index), has_efficiency=has_efficiency)
    _check_compare(check, case.get("compare"), (*path, "compare"))
    check.boolean(case, "compare_output", path)


def _check_check(check: Checker, item: object, path: FieldPath, *, has_efficiency: bool) -> None:
    if isinstance(item, dict):
        name = item.get("kind")
        allowed = {"gradients": ("upstream",), "requires_grad": ("expected",)}
        allowed["is_leaf"] = allowed["retain_graph"] = ("expected",)
        check.keys(item, path, ("kind", *allowed.get(str(name), ())))
        _check_upstream(check, item.get("upstream", "sum"), (*path, "upstream"))
        check.boolean(item, "expected", path)
        path = (*path, "kind")
    else:
        name = item
    if name not in schema.CHECK_NAMES:
        check.error(path, f"unknown check {name!r}; known: {', '.join(schema.CHECK_NAMES)}")
    elif name == "efficiency" and not has_efficiency:
        check.error(path, "the efficiency check needs the question's efficiency ratios")
    elif name == "retain_graph" and not (isinstance(item, dict) and "expected" in item):
        check.error(path, "retain_graph needs expected: true or false")


def _check_upstream(check: Checker, upstream: object, path: FieldPath) -> None:
    """The gradient fed to backward: sum, ones, or a tensor value of the output's shape."""
    if upstream in ("sum", "ones"):
        return
    if not isinstance(upstream, dict) or not ({"tensor", "random"} & set(upstream)):
        check.error(path, "must be sum, ones or a {tensor: ...} or {random: ...} value")
        return
    check_value(check, upstream, path)


def check_value(check: Checker, value: object, path: FieldPath) -> None:
    """A value form: a plain value, a list of values, `{tensor: ...}` or `{random: ...}`."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            check_value(check, item, (*path, index))
        return
    if not isinstance(value, dict):
        return
    if ("tensor" in value) == ("random" in value):
        check.error(path, "a mapping value needs exactly one of tensor or random")
        return
    check.keys(value, path, schema.TENSOR_KEYS if "tensor" in value else schema.RANDOM_KEYS)
    check.choice(value, "dtype", path, schema.DTYPES)
    check.boolean(value, "requires_grad", path)
    if value.get("requires_grad") is True and value.get("dtype", "float32") not in (
        schema.FLOAT_DTYPES
    ):
        check.error((*path, "requires_grad"), "only floating-point tensors can require grad")
    if "tensor" in value:
        _check_tensor_data(check, value["tensor"], (*path, "tensor"))
    else:
        _check_random(check, value, path)


def _check_tensor_data(check: Checker, data: object, path: FieldPath) -> None:
    if _shape_of(data) is None:
        check.error(path, "must be a number or a rectangular nested list of numbers")


def _shape_of(data: object) -> tuple[int, ...] | None:
    if isinstance(data, int | float):
        return ()
    if not isinstance(data, list):
        return None
    shapes = {_shape_of(item) for item in data}
    if None in shapes or len(shapes) > 1:
        return None
    inner = shapes.pop() if shapes else ()
    return None if inner is None else (len(data), *inner)


def _check_random(check: Checker, value: dict[str, Any], path: FieldPath) -> None:
    shape = value["random"]
    if not isinstance(shape, list) or not all(
        isinstance(size, int) and not isinstance(size, bool) and size >= 0 for size in shape
    ):
        check.error((*path, "random"), "must be a shape: a list of whole numbers >= 0")
    check.choice(value, "distribution", path, schema.DISTRIBUTIONS)
    low = check.number(value, "low", path)
    high = check.number(value, "high", path)
    if low is not None and high is not None and low >= high:
        check.error((*path, "high"), "must be above low")
    scale = check.number(value, "scale", path, minimum=0)
    if value.get("distribution") == "bernoulli" and scale is not None and scale > 1:
        check.error((*path, "scale"), "a bernoulli probability must be between 0 and 1")


def _check_training(check: Checker, case: dict[str, Any], path: FieldPath) -> None:
    _check_model(check, check.required(case, "model", path), (*path, "model"))
    raw_data = check.required(case, "data", path)
    data = None if raw_data is None else check.mapping(raw_data, (*path, "data"), "data")
    if data is not None:
        check.keys(data, (*path, "data"), ("x", "y"))
        for key in ("x", "y"):
            if check.required(data, key, (*path, "data")) is not None:
                check_value(check, data[key], (*path, "data", key))
    if check.required(case, "loss", path) is not None:
        check.choice(case, "loss", path, schema.LOSSES)
    _check_optimizer(check, check.required(case, "optimizer", path), (*path, "optimizer"))
    check.number(case, "steps", path, positive=True, integer=True, required=True)
    stages = check.items(case, "stages", path)
    for index, item in enumerate(stages or []):
        stage_path = (*path, "stages", index)
        stage = check.mapping(item, stage_path, "a stage")
        if stage is None:
            continue
        check.keys(stage, stage_path, ("check", "weight", "tolerance"))
        if check.required(stage, "check", stage_path) is not None:
            check.choice(stage, "check", stage_path, schema.STAGE_CHECKS)
        check.number(stage, "weight", stage_path, minimum=0)
        check.number(stage, "tolerance", stage_path, minimum=0)


def _check_model(check: Checker, model: object, path: FieldPath) -> None:
    if model is None:
        return
    if not isinstance(model, dict) or len(model) != 1 or next(iter(model)) not in ("linear", "mlp"):
        check.error(path, "must be {linear: [in, out]} or {mlp: [in, hidden..., out]}")
        return
    kind, sizes = next(iter(model.items()))
    valid = isinstance(sizes, list) and all(
        isinstance(size, int) and not isinstance(size, bool) and size > 0 for size in sizes
    )
    if not valid or (kind == "linear" and len(sizes) != 2) or len(sizes) < 2:
        check.error((*path, kind), "must list the layer sizes as whole numbers above 0")


def _check_optimizer(check: Checker, optimizer: object, path: FieldPath) -> None:
    if optimizer is None:
        return
    if not isinstance(optimizer, dict) or len(optimizer) != 1:
        check.error(path, "must be {sgd: {lr: ...}} or {adam: {lr: ...}}")
        return
    name, options = next(iter(optimizer.items()))
    if name not in schema.OPTIMIZERS:
        check.error((*path, str(name)), "unknown optimizer; use sgd or adam")
        return
    settings = check.mapping(options, (*path, name), "optimizer settings")
    if settings is None:
        return
    check.keys(settings, (*path, name), schema.OPTIMIZERS[name])
    check.number(settings, "lr", (*path, name), positive=True, required=True)
    check.number(settings, "momentum", (*path, name), minimum=0)
    check.number(settings, "weight_decay", (*path, name), minimum=0)

"""Cases as typed objects, parsed and validated from the bank's case dicts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runner.harness.spec_training import Training, parse_training
from runner.harness.spec_values import MAX_WEIGHT, CaseError, Path, is_number, validate_value

CHECK_KINDS = (
    "gradients",
    "requires_grad",
    "is_leaf",
    "grad_accumulates",
    "purity",
    "no_graph",
    "determinism",
    "gradcheck",
    "efficiency",
    "retain_graph",
    "saved_tensors",
    "input_reads",
    "fresh_output",
    "graph_nodes",
)
# What `saved_tensors` records when autograd refused the backward after an edit.
REFUSED_AFTER_EDIT = "refused"
# The .grad each input leaf that requires grad holds when the call starts. Not zero: an answer
# that zeroed the caller's gradients, or read its own result from `.grad` after running
# backward into the caller's tensors, would look right on zeros.
PRESET_GRAD = 0.25
COMPARE_FIELDS = {
    "rtol": "number",
    "atol": "number",
    "dtype": "mode",
    "equal_nan": "bool",
    "check_device": "bool",
}
COMPARE_KEYS = tuple(COMPARE_FIELDS)
COMPARE_DTYPE_RULES = ("strict", "promotable")
CASE_KINDS = ("call", "training")
_COMMON_CASE_KEYS = ("name", "kind", "weight", "hidden", "seed")
# In the order bank files write them.
CALL_CASE_KEYS = (*_COMMON_CASE_KEYS, "args", "kwargs", "checks", "compare", "compare_output")
TRAINING_CASE_KEYS = (*_COMMON_CASE_KEYS, "model", "data", "loss", "optimizer", "steps", "stages")
MAX_CASE_NAME = 200
_CHECK_OPTIONS: dict[str, set[str]] = {
    "gradients": {"upstream"},
    "requires_grad": {"expected"},
    "is_leaf": {"expected"},
    "retain_graph": {"expected"},
    "gradcheck": {"eps", "atol", "rtol"},
    "input_reads": {"max_ratio"},
    "graph_nodes": {"max_ratio"},
}


@dataclass(frozen=True)
class Check:
    kind: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    index: int
    name: str
    weight: float
    hidden: bool
    seed: int
    kind: str
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)
    compare: dict[str, Any] = field(default_factory=dict)
    compare_output: bool = True
    training: Training | None = None

    def has(self, kind: str) -> bool:
        return any(check.kind == kind for check in self.checks)

    def check(self, kind: str) -> Check | None:
        return next((check for check in self.checks if check.kind == kind), None)


def parse_cases(raw: object) -> list[Case]:
    """Parse and validate a question's `cases`; raises CaseError naming the field."""
    if not isinstance(raw, list) or not raw:
        raise CaseError(("cases",), "must be a non-empty list")
    cases = [parse_case(item, index) for index, item in enumerate(raw)]
    seen: set[str] = set()
    for case in cases:
        if case.name in seen:
            raise CaseError(("cases", case.index, "name"), "two cases have this name")
        seen.add(case.name)
    return cases


def parse_case(raw: object, index: int) -> Case:
    path: Path = ("cases", index)
    if not isinstance(raw, dict):
        raise CaseError(path, "a case must be a mapping")
    kind = raw.get("kind", "call")
    if kind not in CASE_KINDS:
        raise CaseError((*path, "kind"), f"unknown kind {kind!r}; use call or training")
    allowed = TRAINING_CASE_KEYS if kind == "training" else CALL_CASE_KEYS
    unknown = sorted(set(raw) - set(allowed))
    if unknown:
        raise CaseError((*path, unknown[0]), f"unknown field; allowed: {', '.join(allowed)}")
    base = _case_basics(raw, index, path)
    if kind == "training":
        return Case(**base, kind=kind, training=parse_training(raw, path))
    return Case(**base, kind=kind, **_call_fields(raw, path))


def _case_basics(raw: dict[str, Any], index: int, path: Path) -> dict[str, Any]:
    name = raw.get("name", f"case {index + 1}")
    weight = raw.get("weight", 1)
    seed = raw.get("seed", index)
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_CASE_NAME:
        raise CaseError((*path, "name"), f"must be a non-empty string of {MAX_CASE_NAME} or fewer")
    if not is_number(weight) or not 0 <= weight <= MAX_WEIGHT:
        raise CaseError((*path, "weight"), f"must be a number from 0 to {MAX_WEIGHT}")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**32:
        raise CaseError((*path, "seed"), "must be an integer in [0, 2**32)")
    if not isinstance(raw.get("hidden", False), bool):
        raise CaseError((*path, "hidden"), "must be true or false")
    return {
        "index": index,
        "name": name,
        "weight": float(weight),
        "hidden": raw.get("hidden", False),
        "seed": seed,
        "compare": parse_compare(raw.get("compare", {}), (*path, "compare")),
    }


def _call_fields(raw: dict[str, Any], path: Path) -> dict[str, Any]:
    args = raw.get("args", [])
    kwargs = raw.get("kwargs", {})
    if not isinstance(args, list):
        raise CaseError((*path, "args"), "must be a list")
    if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
        raise CaseError((*path, "kwargs"), "must be a mapping of names to values")
    validate_value(args, (*path, "args"))
    for name, value in kwargs.items():
        validate_value(value, (*path, "kwargs", name))
    compare_output = raw.get("compare_output", True)
    if not isinstance(compare_output, bool):
        raise CaseError((*path, "compare_output"), "must be true or false")
    checks = raw.get("checks", [])
    if not isinstance(checks, list):
        raise CaseError((*path, "checks"), "must be a list")
    parsed = [_parse_check(item, (*path, "checks", i)) for i, item in enumerate(checks)]
    return {"args": args, "kwargs": kwargs, "checks": parsed, "compare_output": compare_output}


def _parse_check(raw: object, path: Path) -> Check:
    if isinstance(raw, str):
        raw = {"kind": raw}
    if not isinstance(raw, dict) or not isinstance(raw.get("kind"), str):
        raise CaseError(path, "a check is a name or a mapping with `kind`")
    kind = raw["kind"]
    if kind not in CHECK_KINDS:
        raise CaseError(
            (*path, "kind"), f"unknown check {kind!r}; use one of {', '.join(CHECK_KINDS)}"
        )
    options = {k: v for k, v in raw.items() if k != "kind"}
    unknown = sorted(set(options) - _CHECK_OPTIONS.get(kind, set()))
    if unknown:
        raise CaseError((*path, unknown[0]), f"unknown option for {kind}")
    _validate_check_options(kind, options, path)
    return Check(kind=kind, options=options)


def _validate_check_options(kind: str, options: dict[str, Any], path: Path) -> None:
    if kind == "retain_graph" and "expected" not in options:
        raise CaseError((*path, "expected"), "retain_graph needs expected: true or false")
    if "expected" in options and not isinstance(options["expected"], bool):
        raise CaseError((*path, "expected"), "must be true or false")
    for key in ("eps", "atol", "rtol"):
        if key in options and (not is_number(options[key]) or options[key] <= 0):
            raise CaseError((*path, key), "must be a positive number")
    ratio = options.get("max_ratio", 1)
    if not is_number(ratio) or not ratio >= 1:
        raise CaseError(
            (*path, "max_ratio"), "must be a number of at least 1 (the reference's own ratio)"
        )
    upstream = options.get("upstream", "sum")
    if kind == "gradients" and upstream not in ("sum", "ones"):
        validate_value(upstream, (*path, "upstream"))
        if not isinstance(upstream, dict) or not ({"tensor", "random"} & set(upstream)):
            what = "must be sum, ones or a {tensor: ...} or {random: ...} value"
            raise CaseError((*path, "upstream"), what)


def parse_compare(raw: object, path: Path) -> dict[str, Any]:
    """Validate a `compare` mapping (question defaults or a case's overrides)."""
    if not isinstance(raw, dict):
        raise CaseError(path, "must be a mapping")
    for key, value in raw.items():
        expected = COMPARE_FIELDS.get(key)
        if expected is None:
            raise CaseError((*path, str(key)), f"unknown field; allowed: {', '.join(COMPARE_KEYS)}")
        ok = {
            "number": is_number(value) and value >= 0,
            "bool": isinstance(value, bool),
            "mode": value in COMPARE_DTYPE_RULES,
        }[expected]
        if not ok:
            hint = {
                "number": "a number >= 0",
                "bool": "true or false",
                "mode": "strict or promotable",
            }
            raise CaseError((*path, str(key)), f"must be {hint[expected]}")
    return dict(raw)

"""The one schema of a code question, owned by the runner: what the bank stores and the runner runs.

Bank import (quizbank), grading's job building and `runner_check` all parse a
code question's runner settings here, so a key, a check name or a limit is
known in exactly one place, and an unknown key is the same clear error
everywhere. Pure Python (no Django, Celery or torch): the web tier and the
bank import it. Errors are `CaseError`s whose `path` names the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from runner.harness.spec import (
    CALL_CASE_KEYS,
    CASE_KINDS,
    CHECK_KINDS,
    COMPARE_DTYPE_RULES,
    COMPARE_KEYS,
    MAX_CASE_NAME,
    TRAINING_CASE_KEYS,
    parse_cases,
    parse_compare,
)
from runner.harness.spec_training import LOSSES, OPTIMIZERS, STAGES
from runner.harness.spec_values import (
    DISTRIBUTIONS,
    DTYPES,
    FLOAT_DTYPES,
    RANDOM_KEYS,
    TENSOR_KEYS,
    CaseError,
    format_path,
    is_number,
)
from runner.types import CompareSettings, Device, GradingJob, GradingResult, Limits, Status

__all__ = [
    "CALL_CASE_KEYS",
    "CASE_KINDS",
    "CHECK_KINDS",
    "COMPARE_DTYPE_RULES",
    "COMPARE_KEYS",
    "CONTRACT_VERSION",
    "CORRECT_FILE_RE",
    "DEVICES",
    "DISTRIBUTIONS",
    "DTYPES",
    "EFFICIENCY_KEYS",
    "FLOAT_DTYPES",
    "GENERATOR_FILE",
    "LIMIT_KEYS",
    "LOSSES",
    "MAX_CASE_NAME",
    "REFERENCE_FILE",
    "OPTIMIZERS",
    "RANDOM_KEYS",
    "RUNNER_KEYS",
    "STAGES",
    "TENSOR_KEYS",
    "TRAINING_CASE_KEYS",
    "WRONG_FILE_RE",
    "CaseError",
    "CodeQuestionSpec",
    "format_path",
    "parse_code_question",
    "solution_earns_full_marks",
    "solution_files",
    "solution_problem",
]

# Raised when a stored question's shape changes incompatibly; stored with each job's spec.
CONTRACT_VERSION = 1
# The keys of a code question that belong to the runner, in the order bank files write them.
RUNNER_KEYS = ("entry_point", "device", "limits", "compare", "forbidden", "efficiency", "cases")
DEVICES = tuple(device.value for device in Device)
LIMIT_KEYS = ("time_s", "memory_mb", "output_kb")
EFFICIENCY_KEYS = ("max_time_ratio", "max_memory_ratio")
_QUALIFIED_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_LIMIT_TYPES: dict[str, type] = {"time_s": float, "memory_mb": int, "output_kb": int}
# The most a question may ask for one run: more would hold a worker for minutes per answer or
# ask for memory no worker has (a limit past the machine's is no limit at all).
LIMIT_MAXIMA: dict[str, float] = {"time_s": 120, "memory_mb": 16_384, "output_kb": 10_240}


@dataclass(frozen=True)
class CodeQuestionSpec:
    """A code question's runner settings, validated; `job` makes the GradingJob of an answer."""

    entry_point: str
    cases: list[dict[str, Any]]
    compare: CompareSettings = field(default_factory=CompareSettings)
    device: Device = Device.CPU
    limits: Limits = field(default_factory=Limits)
    forbidden: list[str] = field(default_factory=list)
    efficiency: dict[str, float] = field(default_factory=dict)

    def job(self, *, job_id: str, source: str, reference_source: str) -> GradingJob:
        """The job that grades `source` against `reference_source` on this question."""
        return GradingJob(
            job_id=job_id,
            source=source,
            entry_point=self.entry_point,
            reference_source=reference_source,
            cases=self.cases,
            compare=self.compare,
            device=self.device,
            limits=self.limits,
            forbidden=self.forbidden,
            efficiency=self.efficiency,
        )


def parse_code_question(data: Mapping[str, Any], *, cases: bool = True) -> CodeQuestionSpec:
    """The runner's part of a code question (the RUNNER_KEYS of `data`; other keys are the
    bank's), validated; raises CaseError naming the field. `cases=False` skips the cases
    (an editor that keeps them elsewhere checks the rest)."""
    entry_point = data.get("entry_point")
    if not isinstance(entry_point, str) or not entry_point.isidentifier():
        raise CaseError(("entry_point",), "must be a Python identifier")
    efficiency = _efficiency(data.get("efficiency", {}))
    raw_cases = data.get("cases") if cases else None
    if cases:
        _require_case_names(raw_cases)
        parsed = parse_cases(raw_cases)
        if not efficiency:
            for case in parsed:
                if case.has("efficiency"):
                    raise CaseError(
                        ("cases", case.index, "checks"),
                        "the efficiency check needs the question's efficiency ratios",
                    )
    return CodeQuestionSpec(
        entry_point=entry_point,
        cases=list(raw_cases) if isinstance(raw_cases, list) else [],
        compare=CompareSettings(**parse_compare(data.get("compare", {}), ("compare",))),
        device=_device(data.get("device", "cpu")),
        limits=_limits(data.get("limits", {})),
        forbidden=_forbidden(data.get("forbidden", [])),
        efficiency=efficiency,
    )


def _require_case_names(raw_cases: object) -> None:
    """A question names every case: students read the names in their feedback (a job made
    elsewhere may leave them out and get "case 1", "case 2", ...)."""
    if isinstance(raw_cases, list):
        for index, case in enumerate(raw_cases):
            if isinstance(case, dict) and "name" not in case:
                raise CaseError(("cases", index, "name"), "is required")


def _device(raw: object) -> Device:
    if raw not in DEVICES:
        raise CaseError(("device",), f"must be one of {', '.join(DEVICES)}")
    return Device(str(raw))


def _limits(raw: object) -> Limits:
    if not isinstance(raw, dict):
        raise CaseError(("limits",), "must be a mapping")
    values: dict[str, Any] = {}
    for key, value in raw.items():
        kind = _LIMIT_TYPES.get(key)
        if kind is None:
            allowed = ", ".join(LIMIT_KEYS)
            raise CaseError(("limits", str(key)), f"unknown field; allowed: {allowed}")
        if not is_number(value) or value <= 0 or (kind is int and value != int(value)):
            what = "a positive whole number" if kind is int else "a positive number"
            raise CaseError(("limits", key), f"must be {what}")
        if value > LIMIT_MAXIMA[key]:
            raise CaseError(("limits", key), f"must be at most {LIMIT_MAXIMA[key]:g}")
        values[key] = kind(value)
    return Limits(**values)


def _forbidden(raw: object) -> list[str]:
    if not isinstance(raw, list):
        raise CaseError(("forbidden",), "must be a list of qualified names like torch.linalg.inv")
    for index, name in enumerate(raw):
        if not isinstance(name, str) or not _QUALIFIED_NAME.match(name):
            raise CaseError(("forbidden", index), "must be a qualified name such as torch.softmax")
    return list(raw)


def _efficiency(raw: object) -> dict[str, float]:
    if not isinstance(raw, dict):
        raise CaseError(("efficiency",), "must be a mapping")
    for key, value in raw.items():
        if key not in EFFICIENCY_KEYS:
            allowed = ", ".join(EFFICIENCY_KEYS)
            raise CaseError(("efficiency", str(key)), f"unknown field; allowed: {allowed}")
        if not is_number(value) or value < 1:
            raise CaseError(("efficiency", key), "must be a number >= 1")
    return {key: float(value) for key, value in raw.items()}


# A code question's solutions and what each must earn (docs/bank-format.md): the reference
# and every correct_*.py full marks; every wrong_*.py less, failing a case a student sees, so
# a student making that mistake is told what it is. `runner_check` and the authors' solution
# check judge them alike.
REFERENCE_FILE = "reference.py"
GENERATOR_FILE = "generate.py"  # a parameterised question's generate(rng), not a solution
# fullmatch: no "$" before a "\n"; <name> up to 100 characters (a file system takes 255).
CORRECT_FILE_RE = re.compile(r"correct_[A-Za-z0-9_]{1,100}\.py")
WRONG_FILE_RE = re.compile(r"wrong_[A-Za-z0-9_]{1,100}\.py")


def solution_files(files: Mapping[str, str]) -> dict[str, str]:
    """The solutions among a question's `files` (name to source), in the order they are
    checked: the reference, then correct_*.py, then wrong_*.py, each group sorted."""
    correct = sorted(name for name in files if CORRECT_FILE_RE.fullmatch(name))
    wrong = sorted(name for name in files if WRONG_FILE_RE.fullmatch(name))
    names = ([REFERENCE_FILE] if REFERENCE_FILE in files else []) + correct + wrong
    return {name: files[name] for name in names}


def solution_earns_full_marks(name: str) -> bool:
    """Whether solution file `name` must score 1.0 (else it is a known-wrong one)."""
    return not WRONG_FILE_RE.fullmatch(name)


def solution_problem(name: str, result: GradingResult) -> str:
    """Why the grading `result` of solution file `name` breaks the rule its name sets, or ""
    when it earned what it should."""
    if solution_earns_full_marks(name):
        if result.status == Status.OK and result.score >= 1.0:
            return ""
        return f"scored {result.score:.2f} ({_why(result)})"
    if result.status == Status.INTERNAL:
        return f"ended internal ({result.message}): a known-wrong solution must be graded"
    if result.score >= 1.0:
        return "scored 1.00 (a known-wrong solution must score below 1)"
    failed = [case for case in result.cases if not case.passed]
    if result.status == Status.OK and failed and all(case.hidden for case in failed):
        names = ", ".join(case.name for case in failed)
        return f"is caught only by hidden cases ({names}); a visible case must catch it too"
    return ""


def _why(result: GradingResult) -> str:
    failed = [case.message for case in result.cases if not case.passed]
    detail = "; ".join(message for message in failed[:3] if message)
    return f"{result.status}: {result.message}" + (f"; {detail}" if detail else "")

"""The runner's vocabulary: statuses, devices, limits, jobs and results, and their errors.

Plain, JSON-safe dataclasses (each with `to_dict`/`from_dict`) so jobs and
results travel as Celery messages. Pure Python: the web tier, the bank and
the worker all import it, and it imports neither Django, Celery nor torch.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any, TypeVar

_T = TypeVar("_T")


def plain(value: Any) -> Any:
    """A dataclass tree as JSON-safe dicts, lists and scalars (enums become their values)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    return value


def _build(cls: type[_T], data: Any, **nested: Any) -> _T:
    """Construct `cls` from a dict, naming the class and keys when the dict is wrong."""
    if not isinstance(data, dict):
        raise ValueError(f"{cls.__name__}: expected an object, got {type(data).__name__}")
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]  # cls is a dataclass
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"{cls.__name__}: unknown keys {unknown}")
    try:
        return cls(**{**data, **{k: v for k, v in nested.items() if k in data}})
    except TypeError as error:
        raise ValueError(f"{cls.__name__}: {error}") from error


# Runs per side of an efficiency case's timing (the least CPU time of them counts).
TIMING_RUNS = 3

# What kind of check failed, as a hidden case's feedback may say it (never a value or an input).
FAILURE_KINDS = {
    "error": "the code raised an error",
    "output": "the output differs from the expected one",
    "gradients": "the gradients differ from the expected ones",
    "side_effect": "the call changed its inputs or the caller's state",
    "aliasing": "the output shares memory with an input or with an earlier call's output",
    "graph": "the autograd graph is not what the question asks for",
    "determinism": "two runs with the same seed differ",
    "efficiency": "the code is slower or uses more memory than allowed",
    "reads": "the code reads its inputs more often than allowed",
    "training": "training does not behave as expected",
    "forbidden": "the code uses an operation this question forbids",
}
HIDDEN_CASE_FAILED = "hidden case failed"
HIDDEN_CASE_MESSAGES = frozenset(
    {HIDDEN_CASE_FAILED, *(f"{HIDDEN_CASE_FAILED}: {phrase}" for phrase in FAILURE_KINDS.values())}
)


class Status(enum.StrEnum):
    OK = "ok"
    ERROR = "error"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    OUTPUT_LIMIT = "output_limit"
    FORBIDDEN = "forbidden"
    INTERNAL = "internal"


class Device(enum.StrEnum):
    CPU = "cpu"
    CUDA = "cuda"
    ANY = "any"


@dataclass(frozen=True)
class Limits:
    time_s: float = 5.0
    memory_mb: int = 1024
    output_kb: int = 64


@dataclass(frozen=True)
class CompareSettings:
    rtol: float = 1e-5
    atol: float = 1e-8
    dtype: str = "strict"  # "strict" or "promotable"
    equal_nan: bool = False
    check_device: bool = False


@dataclass(frozen=True)
class GradingJob:
    """Everything needed to grade one answer; `cases` use the bank's case format."""

    job_id: str
    source: str
    entry_point: str
    reference_source: str
    cases: list[dict[str, Any]]
    compare: CompareSettings = field(default_factory=CompareSettings)
    device: Device = Device.CPU
    limits: Limits = field(default_factory=Limits)
    forbidden: list[str] = field(default_factory=list)
    efficiency: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = plain(self)
        return result

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GradingJob:
        return _build(
            cls,
            data,
            compare=_build(CompareSettings, data.get("compare", {})),
            device=Device(data.get("device", "cpu")),
            limits=_build(Limits, data.get("limits", {})),
        )


@dataclass(frozen=True)
class CaseResult:
    name: str
    passed: bool
    weight: float
    message: str = ""
    hidden: bool = False
    max_abs_error: float | None = None
    max_rel_error: float | None = None


@dataclass(frozen=True)
class GradingResult:
    job_id: str
    status: Status
    score: float  # weighted share of passed cases, in [0, 1]
    cases: list[CaseResult] = field(default_factory=list)
    message: str = ""  # e.g. the student's traceback, trimmed to their own code
    stdout: str = ""
    stderr: str = ""
    device: str = "cpu"
    timings_ms: dict[str, float] = field(default_factory=dict)
    sandboxed: bool = True  # False only for development runs under RUNNER_ALLOW_UNSANDBOXED

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = plain(self)
        return result

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GradingResult:
        cases = [_build(CaseResult, case) for case in data.get("cases", [])]
        return _build(cls, data, status=Status(str(data.get("status"))), cases=cases)


@dataclass(frozen=True)
class RunResult:
    status: Status
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    duration_ms: float = 0.0
    truncated: bool = False
    message: str = ""  # why a run was stopped or refused; empty for a normal exit
    sandboxed: bool = True

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = plain(self)
        return result

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunResult:
        return _build(cls, data, status=Status(str(data.get("status"))))


class NoWorkerAnswered(RuntimeError):
    """No worker finished a job the web tier waits on within its time (none running, or all
    busy); nothing of it ran, or its result comes too late to be shown."""


class GeneratorFailed(ValueError):
    """An author's generator crashed, ran too long or returned something other than a dict."""

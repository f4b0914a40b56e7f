"""The runner's public interface: the only module other apps may import.

`grade` scores a student's PyTorch answer against a reference solution in the
sandbox; `execute` runs a snippet ("try it"); `submit_grading` queues a job on
the `cpu` or `gpu` Celery queue. Jobs and results are plain, JSON-safe
dataclasses so they can travel as Celery messages.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


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


@dataclass(frozen=True)
class RunResult:
    status: Status
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    duration_ms: float = 0.0
    truncated: bool = False

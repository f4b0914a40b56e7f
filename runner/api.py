"""The runner's public interface: the only module other apps may import.

Workers: `grade` scores a student's PyTorch answer against a reference solution
in the sandbox; `execute` runs a snippet ("try it"); `run_generator` runs an
author's generate(rng). All three run code in the calling process's sandbox.
Web tier: `submit_grading` queues a job on the `cpu` or `gpu` Celery queue;
`request_run` and `request_generator` queue a job on `cpu` and wait for its
result. Jobs and results are plain, JSON-safe dataclasses so they can travel
as Celery messages.
"""

from __future__ import annotations

import dataclasses
import enum
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from celery.app.task import Task
    from celery.canvas import Signature

_T = TypeVar("_T")


def _plain(value: Any) -> Any:
    """A dataclass tree as JSON-safe dicts, lists and scalars (enums become their values)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
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


# What kind of check failed, as a hidden case's feedback may say it (never a value or an input).
FAILURE_KINDS = {
    "error": "the code raised an error",
    "output": "the output differs from the expected one",
    "gradients": "the gradients differ from the expected ones",
    "side_effect": "the call changed its inputs or the caller's state",
    "graph": "the autograd graph is not what the question asks for",
    "determinism": "two runs with the same seed differ",
    "efficiency": "the code is slower or uses more memory than allowed",
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
        result: dict[str, Any] = _plain(self)
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
        result: dict[str, Any] = _plain(self)
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
        result: dict[str, Any] = _plain(self)
        return result

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunResult:
        return _build(cls, data, status=Status(str(data.get("status"))))


def grade(job: GradingJob) -> GradingResult:
    """Grade one answer now, in this process's sandbox supervisor (started on first use)."""
    from runner.jobs import grade_job

    return grade_job(job)


def execute(source: str, limits: Limits | None = None, *, device: Device = Device.CPU) -> RunResult:
    """Run a snippet in this process's sandbox ("try it") without grading; the web tier uses
    `request_run` instead."""
    from runner.jobs import execute_source

    return execute_source(source, limits or Limits(), device=device)


def run_generator(source: str, seed: int, limits: Limits | None = None) -> dict[str, Any]:
    """Run an author's `generate(rng)` in this process's sandbox with random.Random(seed); its
    dict. The web tier uses `request_generator` instead.

    Raises GeneratorFailed (a ValueError) with the reason when it does not return a JSON object.
    """
    from runner.jobs import generate_parameters

    return generate_parameters(source, seed, limits or Limits())


class GeneratorFailed(ValueError):
    """An author's generator crashed, ran too long or returned something other than a dict."""


def queue_for(device: Device) -> str:
    """The Celery queue a job on `device` goes to: `gpu` for cuda, `cpu` otherwise."""
    return "gpu" if device == Device.CUDA else "cpu"


def submit_grading(
    job: GradingJob, *, callback: Signature[Any] | None = None, expires_s: float | None = None
) -> str:
    """Queue `job` for a worker; the task id is the job id. `callback` gets the result dict;
    a message still queued `expires_s` after sending is dropped unrun (for a re-send)."""
    from runner.tasks import grade_submission, grading_time_limits

    soft, hard = grading_time_limits(job)
    expiry: dict[str, Any] = {} if expires_s is None else {"expires": expires_s}
    grade_submission.apply_async(
        args=(job.to_dict(),),
        task_id=job.job_id,
        queue=queue_for(job.device),
        link=callback,
        soft_time_limit=soft,
        time_limit=hard,
        **expiry,
    )
    return job.job_id


def grading_time_limit_s(job: GradingJob) -> int:
    """The longest a worker may spend on `job` (its hard task limit), in seconds."""
    from runner.tasks import grading_time_limits

    return grading_time_limits(job)[1]


@dataclass(frozen=True)
class JobProgress:
    """When a worker last picked a job up and its result once finished (None: not yet)."""

    claimed_at: datetime | None
    result: dict[str, Any] | None


def job_progress(job_id: str) -> JobProgress:
    """How far job `job_id` got; both fields are None for a job no worker has picked up."""
    from runner.records import job_record_progress

    return JobProgress(*job_record_progress(job_id=job_id))


# How long the web tier waits for a worker by default: a warm one answers in well under a second.
REQUEST_TIMEOUT_S = 30.0


def _no_worker(timeout_s: float) -> str:
    return f"no grading worker answered within {timeout_s:g} s; try again"


def _request(
    task: Task[Any, Any], kind: str, args: tuple[Any, ...], limits: Limits, timeout_s: float
) -> dict[str, Any] | None:
    """Queue `task` on `cpu` under a fresh job id; its stored result, or None if none came."""
    from runner.records import job_record_wait
    from runner.tasks import time_limits

    job_id = f"{kind}-{uuid.uuid4()}"
    soft, hard = time_limits(limits)
    # `expires`: a worker that picks the job up after the caller gave up drops it unrun.
    task.apply_async(
        args=(job_id, *args, _plain(limits)),
        task_id=job_id,
        queue="cpu",
        expires=timeout_s,
        soft_time_limit=soft,
        time_limit=hard,
    )
    return job_record_wait(job_id=job_id, timeout_s=timeout_s)


def request_run(
    source: str, limits: Limits | None = None, *, timeout_s: float = REQUEST_TIMEOUT_S
) -> RunResult:
    """For the web tier: have a worker run a try-it snippet and wait for its RunResult.

    Never runs code in this process; if no worker answers in time, the status is `internal`.
    """
    from runner.tasks import run_snippet

    data = _request(run_snippet, "run", (source,), limits or Limits(), timeout_s)
    if data is None:
        return RunResult(status=Status.INTERNAL, exit_code=None, message=_no_worker(timeout_s))
    return RunResult.from_dict(data)


def request_generator(
    source: str, seed: int, limits: Limits | None = None, *, timeout_s: float = REQUEST_TIMEOUT_S
) -> dict[str, Any]:
    """For the web tier: have a worker run an author's generate(rng) with `seed`; its dict.

    Never runs code in this process. Raises GeneratorFailed when the generator fails or no
    worker answers in time.
    """
    from runner.tasks import generate_variant

    data = _request(generate_variant, "generate", (source, seed), limits or Limits(), timeout_s)
    if data is None:
        raise GeneratorFailed(_no_worker(timeout_s))
    value = data.get("value")
    if data.get("status") != Status.OK or not isinstance(value, dict):
        raise GeneratorFailed(str(data.get("message") or "the generator returned no parameters"))
    return value

"""The work behind runner.api: grading, try-it runs and generators, on this process's supervisor."""

from __future__ import annotations

import json
import time
from typing import Any

from runner.api import (
    Device,
    GeneratorFailed,
    GradingJob,
    GradingResult,
    Limits,
    RunResult,
    Status,
)
from runner.outcome import ChildOutcome
from runner.reference_cache import reference_cache
from runner.registry import get_supervisor
from runner.supervisor import Supervisor

UNSANDBOXED_NOTE = "ran WITHOUT the sandbox (RUNNER_ALLOW_UNSANDBOXED is on): rlimits only"
_GENERATOR_CAP = 1 << 20


def _resolve_device(supervisor: Supervisor, device: Device) -> tuple[str, str | None]:
    if device != Device.CUDA:
        return "cpu", None
    if supervisor.cuda_devices == 0:
        return "cuda", "this worker has no CUDA device; cuda questions need a GPU worker"
    return "cuda", None


def _note(supervisor: Supervisor, message: str) -> str:
    if supervisor.sandboxed:
        return message
    return f"{message}\n{UNSANDBOXED_NOTE}".strip()


def _request(job: GradingJob, *, role: str, device: str) -> dict[str, Any]:
    source = job.source if role == "student" else job.reference_source
    request = {
        "source": source,
        "entry_point": job.entry_point,
        "cases": job.cases,
        "forbidden": job.forbidden,
        "device": device,
        "role": role,
    }
    return {"kind": "harness", "request": request}


def _failed(job: GradingJob, status: Status, message: str, **extra: Any) -> GradingResult:
    return GradingResult(job_id=job.job_id, status=status, score=0.0, message=message, **extra)


def _reference_payload(
    supervisor: Supervisor, job: GradingJob, device: str
) -> bytes | ChildOutcome:
    key = reference_cache.key(job.reference_source, job.entry_point, job.cases, device)
    cached = reference_cache.get(key)
    if cached is not None:
        return cached
    outcome = supervisor.run(
        _request(job, role="reference", device=device), job.limits, device=device
    )
    if outcome.status != Status.OK or outcome.payload is None:
        return outcome
    reference_cache.put(key, outcome.payload)
    return outcome.payload


def grade_job(job: GradingJob) -> GradingResult:
    """Static check, reference outputs (cached), the student's run, then the comparison."""
    from runner.harness.scoring import score_job
    from runner.harness.static import find_forbidden

    started = time.perf_counter()
    supervisor = get_supervisor()
    device, refusal = _resolve_device(supervisor, job.device)
    refusal = refusal or supervisor.refusal()
    if refusal:
        return _failed(job, Status.INTERNAL, refusal, device=device)
    names = find_forbidden(job.source, job.forbidden)
    if names:
        return _failed(
            job,
            Status.FORBIDDEN,
            f"the answer uses {', '.join(names)}, which this question forbids",
            device=device,
        )
    reference = _reference_payload(supervisor, job, device)
    if isinstance(reference, ChildOutcome):
        return _failed(
            job,
            Status.INTERNAL,
            f"the reference solution failed: {reference.message}",
            device=device,
            stderr=reference.stderr,
        )
    outcome = supervisor.run(
        _request(job, role="student", device=device), job.limits, device=device
    )
    common: dict[str, Any] = {
        "stdout": outcome.stdout,
        "stderr": outcome.stderr,
        "device": device,
        "sandboxed": supervisor.sandboxed,
    }
    if outcome.status != Status.OK or outcome.payload is None:
        return _failed(job, outcome.status, _note(supervisor, outcome.message), **common)
    score, cases, status, message = score_job(job, reference, outcome.payload)
    timings = {"run_ms": outcome.duration_ms, "total_ms": (time.perf_counter() - started) * 1000}
    return GradingResult(
        job_id=job.job_id,
        status=status,
        score=score,
        cases=cases,
        message=_note(supervisor, message),
        timings_ms=timings,
        **common,
    )


def _is_memory_error(stderr: str) -> bool:
    last = stderr.strip().splitlines()[-1:] or [""]
    return last[0].startswith("MemoryError") or "DefaultCPUAllocator" in last[0]


def execute_source(source: str, limits: Limits, *, device: Device = Device.CPU) -> RunResult:
    """Run a snippet as __main__; the status says how it ended, never whether it was right."""
    supervisor = get_supervisor()
    where, refusal = _resolve_device(supervisor, device)
    refusal = refusal or supervisor.refusal()
    if refusal:
        return RunResult(status=Status.INTERNAL, exit_code=None, message=refusal)
    outcome = supervisor.run({"kind": "exec", "source": source}, limits, device=where)
    status, exit_code, message = outcome.status, outcome.exit_code, outcome.message
    if status == Status.OK and outcome.payload is not None:
        exit_code = int(json.loads(outcome.payload).get("exit_code", 1))
        status = Status.OK if exit_code == 0 else Status.ERROR
        if status == Status.ERROR and _is_memory_error(outcome.stderr):
            status, message = Status.MEMORY, "the code ran out of memory"
    return RunResult(
        status=status,
        exit_code=exit_code,
        stdout=outcome.stdout,
        stderr=outcome.stderr,
        duration_ms=outcome.duration_ms,
        truncated=outcome.truncated,
        message=_note(supervisor, message),
        sandboxed=supervisor.sandboxed,
    )


def generate_parameters(source: str, seed: int, limits: Limits) -> dict[str, Any]:
    """Run `generate(random.Random(seed))` in the sandbox and return its JSON object."""
    supervisor = get_supervisor()
    if supervisor.refusal():
        raise GeneratorFailed(supervisor.refusal())
    outcome = supervisor.run(
        {"kind": "generate", "source": source, "seed": seed}, limits, device="cpu"
    )
    if outcome.status != Status.OK or outcome.payload is None:
        raise GeneratorFailed(f"the generator did not finish: {outcome.message}")
    if len(outcome.payload) > _GENERATOR_CAP:
        raise GeneratorFailed("the generator returned more than 1 MB")
    reply = json.loads(outcome.payload)
    if not isinstance(reply, dict) or not reply.get("ok"):
        raise GeneratorFailed(f"the generator raised an error:\n{reply.get('error', '')}")
    value = reply.get("value")
    if not isinstance(value, dict):
        raise GeneratorFailed(f"generate(rng) must return a dict, not {type(value).__name__}")
    return value

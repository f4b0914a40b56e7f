"""The worker side of the runner: grade, execute and run_generator, in this process's sandbox.

Only Celery tasks on the `cpu` and `gpu` queues call these (the web tier uses
`runner.api`, which queues the work); each runs code in the supervisor this
worker process owns.

A grading is a few sandboxed runs, each in a fresh child: the reference on
every case (cached), the answer on the visible cases, the answer on the
hidden cases (nothing of that run reaches the student but pass or fail), and
for each efficiency case timing runs whose CPU time and memory the kernel
reports: the reference's and a baseline's, each the least of `TIMING_RUNS`
(cached), and the answer's, timed again up to `TIMING_RUNS` times in all
before it fails on time.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from typing import Any

from runner.child_outcome import ChildOutcome
from runner.harness.judge_efficiency import Measured, TimingEvidence, time_over_limit
from runner.harness.payload import PayloadError, clean_strings
from runner.harness.reach import reached_forbidden, reached_refusals
from runner.harness.results import decode_timed
from runner.harness.scoring import Payloads, score_job, visible_and_hidden
from runner.harness.spec import Case, parse_cases
from runner.harness.spec_values import CaseError
from runner.harness.static import TOO_COMPLEX, WHY, SourceTooComplex, forbidden_in, scan
from runner.reference_cache import reference_cache
from runner.registry import get_supervisor, top_up
from runner.supervisor import Supervisor
from runner.types import (
    TIMING_RUNS,
    Device,
    GeneratorFailed,
    GradingJob,
    GradingResult,
    Limits,
    RunResult,
    Status,
)

logger = logging.getLogger(__name__)
UNSANDBOXED_NOTE = "ran WITHOUT the sandbox (RUNNER_ALLOW_UNSANDBOXED is on): rlimits only"
HIDDEN_RUN_FAILED = "on the hidden cases: "
TIMED_REPEATS = 5
_GENERATOR_CAP = 1 << 20
_SHOWN_REFUSALS = 3


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


def only_cases(job: GradingJob, indexes: list[int] | None) -> list[Any]:
    """The job's cases at `indexes` (all of them for None), each with its own name and seed
    spelled out, so a run's child never holds a case it does not run: the visible cases' run
    knows nothing of the hidden ones."""
    if indexes is None:
        return job.cases
    return [_standalone(job.cases[index], index) for index in indexes]


def _standalone(case: Any, index: int) -> Any:
    if not isinstance(case, dict):
        return case
    return {**case, "name": case.get("name", f"case {index + 1}"), "seed": case.get("seed", index)}


def harness_request(
    job: GradingJob, *, role: str, device: str, run: list[int] | None = None
) -> dict[str, Any]:
    """The harness's request for one run of `role` ("student" or "reference") on `run` cases."""
    return {
        "source": job.source if role == "student" else job.reference_source,
        "entry_point": job.entry_point,
        "cases": only_cases(job, run),
        "forbidden": job.forbidden,
        "device": device,
        "role": role,
        # The interpreter's veto (harness/audit.py) while the answer runs: only in a sandboxed
        # child, which runs one job and exits (an audit hook stays for the process's life).
        "audited": role == "student",
    }


def _harness(job: GradingJob, *, role: str, device: str, run: list[int] | None = None) -> Any:
    return {"kind": "harness", "request": harness_request(job, role=role, device=device, run=run)}


def _failed(job: GradingJob, status: Status, message: str, **extra: Any) -> GradingResult:
    return GradingResult(job_id=job.job_id, status=status, score=0.0, message=message, **extra)


def _static_refusal(job: GradingJob) -> tuple[Status, str] | None:
    """Why the answer is refused before it runs (status and message), or None."""
    try:
        usage = scan(job.source)
        if usage is None:
            return None  # a syntax error: the child reports it with the line
        refused = [str(refusal) for refusal in sorted(usage.refusals)] or reached_refusals(usage)
        forbidden = [] if refused else reached_forbidden(usage, job.forbidden)
    except (SourceTooComplex, RecursionError):
        return Status.ERROR, TOO_COMPLEX
    if refused:
        shown = "; ".join(refused[:_SHOWN_REFUSALS])
        more = f" and {len(refused) - _SHOWN_REFUSALS} more" if len(refused) > 3 else ""
        return Status.FORBIDDEN, f"the answer uses {shown}{more}: {WHY}"
    names = sorted({*forbidden_in(usage, job.forbidden), *forbidden})
    if names:
        return Status.FORBIDDEN, f"the answer uses {', '.join(names)}, which this question forbids"
    return None


def _reference_payload(
    supervisor: Supervisor, job: GradingJob, device: str
) -> bytes | ChildOutcome:
    key = reference_cache.key(job.reference_source, job.entry_point, job.cases, device)
    cached = reference_cache.get(key)
    if isinstance(cached, bytes):
        return cached
    outcome = supervisor.run(
        _harness(job, role="reference", device=device), job.limits, device=device
    )
    if outcome.status != Status.OK or outcome.payload is None:
        return outcome
    reference_cache.put(key, outcome.payload, len(outcome.payload))
    return outcome.payload


def _timed(
    supervisor: Supervisor, job: GradingJob, case: int, device: str, *, role: str, calls: bool
) -> Measured:
    request = {
        "audited": role == "student",
        "source": job.source if role == "student" else job.reference_source,
        "entry_point": job.entry_point,
        "cases": only_cases(job, [case]),
        "case": 0,
        "repeats": TIMED_REPEATS,
        "calls": calls,
        "device": device,
        "forbidden": job.forbidden if role == "student" else [],
    }
    outcome = supervisor.run({"kind": "timing", "request": request}, job.limits, device=device)
    if outcome.status != Status.OK or outcome.payload is None:
        return Measured(outcome.cpu_s, None, outcome.message, outcome.peak_kb)
    try:
        run = decode_timed(outcome.payload)
    except PayloadError as error:
        return Measured(outcome.cpu_s, None, f"invalid result: {error}", outcome.peak_kb)
    return Measured(outcome.cpu_s, run, peak_kb=outcome.peak_kb)


def _least(runs: list[Measured]) -> Measured:
    """Of the runs that finished, the one with the least CPU time (noise only adds), its
    peak the least of theirs; the first run when none finished (it says why)."""
    finished = [run for run in runs if run.run is not None]
    if not finished:
        return runs[0]
    fastest = min(finished, key=lambda run: run.cpu_s)
    peaks = [run.peak_kb for run in finished if run.peak_kb is not None]
    return dataclasses.replace(fastest, peak_kb=min(peaks) if peaks else None)


def _reference_timing(
    supervisor: Supervisor, job: GradingJob, case: int, device: str, *, calls: bool
) -> Measured:
    base = reference_cache.key(job.reference_source, job.entry_point, job.cases, device)
    key = f"{base}:timing:{case}:{'calls' if calls else 'baseline'}"
    cached = reference_cache.get(key)
    if isinstance(cached, Measured):
        return cached
    runs: list[Measured] = []
    for _ in range(TIMING_RUNS):
        runs.append(_timed(supervisor, job, case, device, role="reference", calls=calls))
        if runs[-1].run is None:
            break
    measured = _least(runs)
    if measured.run is not None:
        reference_cache.put(key, measured, 4096)
    return measured


def _student_timing(
    supervisor: Supervisor, job: GradingJob, case: int, device: str
) -> TimingEvidence:
    """The answer is timed again, up to `TIMING_RUNS` runs in all, while it is over the time
    limit: a slow child must not fail a correct answer, and a slow answer stays slow."""
    reference = _reference_timing(supervisor, job, case, device, calls=True)
    baseline = _reference_timing(supervisor, job, case, device, calls=False)
    runs = [_timed(supervisor, job, case, device, role="student", calls=True)]
    while len(runs) < TIMING_RUNS and runs[-1].run is not None:
        evidence = TimingEvidence(_least(runs), reference, baseline)
        if not time_over_limit(evidence, job.efficiency):
            return evidence
        runs.append(_timed(supervisor, job, case, device, role="student", calls=True))
    return TimingEvidence(_least(runs), reference, baseline)


def _timing(
    supervisor: Supervisor, job: GradingJob, cases: list[Case], device: str
) -> dict[int, TimingEvidence]:
    return {
        case.index: _student_timing(supervisor, job, case.index, device)
        for case in cases
        if case.has("efficiency")
    }


def _student_runs(
    supervisor: Supervisor, job: GradingJob, cases: list[Case], device: str
) -> tuple[Payloads | None, ChildOutcome]:
    """The student's visible then hidden run: payloads, or None and the run that failed."""
    visible, hidden = visible_and_hidden(cases)
    payloads: dict[str, bytes | None] = {"visible": None, "hidden": None}
    shown = ChildOutcome(status=Status.OK)
    for name, indexes in (("visible", visible), ("hidden", hidden)):
        if not indexes:
            continue
        request = _harness(job, role="student", device=device, run=indexes)
        outcome = supervisor.run(request, job.limits, device=device)
        if name == "visible":
            shown = outcome
        if outcome.status != Status.OK or outcome.payload is None:
            if name == "hidden":
                outcome = ChildOutcome(
                    status=outcome.status, message=HIDDEN_RUN_FAILED + outcome.message
                )
            return None, _with_output(outcome, shown)
        payloads[name] = outcome.payload
    return Payloads(b"", payloads["visible"], payloads["hidden"]), shown


def _with_output(outcome: ChildOutcome, shown: ChildOutcome) -> ChildOutcome:
    """`outcome`'s status and message with only the visible run's output."""
    return ChildOutcome(
        status=outcome.status,
        message=outcome.message,
        stdout=shown.stdout,
        stderr=shown.stderr,
        truncated=shown.truncated,
        duration_ms=outcome.duration_ms,
    )


def standby_top_up() -> None:
    """Fork the standby children the last job used up: call it between jobs, once the job's
    result is stored, so the forks never compete with a job for a core."""
    top_up()


def grade(job: GradingJob) -> GradingResult:
    """Static checks, reference outputs (cached), the answer's runs, then the comparison.

    Always returns a result: an unexpected failure of the grader itself is logged and the
    answer ends as an `error` an examiner can regrade, never as an uncaught exception that
    would leave the job unfinished.
    """
    try:
        return _grade(job)
    except Exception:  # the task's edge: whatever broke, the job must end with a result
        logger.exception("grading job %s failed in the grader", job.job_id)
        message = "the grader could not judge this answer; an examiner can regrade it"
        # internal, not error: the answer was not judged, so it must not end as a final 0.
        return _failed(job, Status.INTERNAL, message)


def _grade(job: GradingJob) -> GradingResult:
    started = time.perf_counter()
    supervisor = get_supervisor()
    device, refusal = _resolve_device(supervisor, job.device)
    refusal = refusal or supervisor.refusal()
    if refusal:
        return _failed(job, Status.INTERNAL, refusal, device=device)
    refused = _static_refusal(job)
    if refused is not None:
        return _failed(job, refused[0], refused[1], device=device)
    try:
        cases = parse_cases(job.cases)
    except CaseError as error:
        return _failed(job, Status.INTERNAL, f"invalid case: {error}", device=device)
    reference = _reference_payload(supervisor, job, device)
    if isinstance(reference, ChildOutcome):
        message = f"the reference solution failed: {reference.message}"
        return _failed(job, Status.INTERNAL, message, device=device, stderr=reference.stderr)
    payloads, shown = _student_runs(supervisor, job, cases, device)
    common: dict[str, Any] = {
        "stdout": shown.stdout,
        "stderr": shown.stderr,
        "device": device,
        "sandboxed": supervisor.sandboxed,
    }
    if payloads is None:
        return _failed(job, shown.status, _note(supervisor, shown.message), **common)
    timing = _timing(supervisor, job, cases, device)
    full = Payloads(reference, payloads.visible, payloads.hidden, timing)
    score, results, status, message = score_job(job, full)
    timings = {"run_ms": shown.duration_ms, "total_ms": (time.perf_counter() - started) * 1000}
    return GradingResult(
        job_id=job.job_id,
        status=status,
        score=score,
        cases=results,
        message=_note(supervisor, message),
        timings_ms=timings,
        **common,
    )


def _is_memory_error(stderr: str) -> bool:
    last = stderr.strip().splitlines()[-1:] or [""]
    return last[0].startswith("MemoryError") or "DefaultCPUAllocator" in last[0]


def _exit_code(payload: bytes) -> int | None:
    """The exit code a snippet's child reported, or None when its reply is not one."""
    try:
        reply = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    code = reply.get("exit_code") if isinstance(reply, dict) else None
    return code if type(code) is int else None


def execute(source: str, limits: Limits | None = None, *, device: Device = Device.CPU) -> RunResult:
    """Run a snippet as __main__ ("try it"); the status says how it ended, never whether it
    was right."""
    limits = limits or Limits()
    supervisor = get_supervisor()
    where, refusal = _resolve_device(supervisor, device)
    refusal = refusal or supervisor.refusal()
    if refusal:
        return RunResult(status=Status.INTERNAL, exit_code=None, message=refusal)
    outcome = supervisor.run({"kind": "exec", "source": source}, limits, device=where)
    status, exit_code, message = outcome.status, outcome.exit_code, outcome.message
    if status == Status.OK and outcome.payload is not None:
        exit_code = _exit_code(outcome.payload)
        if exit_code is None:
            status, message = Status.ERROR, "the run's reply was not understood"
        elif exit_code != 0:
            status = Status.ERROR
            if _is_memory_error(outcome.stderr):
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


def run_generator(source: str, seed: int, limits: Limits | None = None) -> dict[str, Any]:
    """Run an author's `generate(random.Random(seed))` in the sandbox; its JSON object.

    Raises GeneratorFailed (a ValueError) with the reason when it does not return one.
    """
    limits = limits or Limits()
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
    try:
        reply = clean_strings(json.loads(outcome.payload))
    except (ValueError, RecursionError):
        reply = None
    if not isinstance(reply, dict):
        raise GeneratorFailed("the generator's reply was not understood")
    if not reply.get("ok"):
        raise GeneratorFailed(f"the generator raised an error:\n{reply.get('error', '')}")
    value = reply.get("value")
    if not isinstance(value, dict):
        raise GeneratorFailed(f"generate(rng) must return a dict, not {type(value).__name__}")
    return value

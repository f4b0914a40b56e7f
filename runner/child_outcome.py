"""Turning what was read from a child into a status: the only place a run gets a verdict."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass

from runner.drain import Collected
from runner.framing import FrameError, parse_single_frame
from runner.standby import READY
from runner.types import Status

_CONTROL = {c: f"\\x{c:02x}" for c in range(32) if chr(c) not in "\n\t"}
_CONTROL[127] = "\\x7f"


@dataclass(frozen=True)
class ChildOutcome:
    """How one child run ended; `payload` is set only when status is ok."""

    status: Status
    message: str = ""
    payload: bytes | None = None
    stdout: str = ""
    stderr: str = ""
    truncated: bool = False
    exit_code: int | None = None
    duration_ms: float = 0.0
    cpu_s: float = 0.0  # the kernel's user + system CPU time of the child
    peak_kb: int | None = None  # the most memory the kernel charged to the job's cgroup


@dataclass(frozen=True)
class RunLimits:
    """The limits one run was given, as the classifier needs them."""

    wall_s: float
    cpu_s: float
    output_cap: int
    result_cap: int


def clean_text(data: bytes, cap: int) -> str:
    """Decode untrusted output: invalid UTF-8 replaced, terminal escapes made visible."""
    return data[:cap].decode("utf-8", errors="replace").translate(_CONTROL)


def _describe_exit(status: int | None) -> tuple[str, int | None]:
    if status is None:
        return "the program was stopped", None
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return f"the program was killed by {_signal_name(number)}", -number
    code = os.WEXITSTATUS(status)
    return f"the program exited with code {code} before returning a result", code


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _limit_status(got: Collected, limits: RunLimits, oom: bool) -> tuple[Status, str] | None:
    record = got.exit_record
    cpu = record[1] + record[2] if record else 0.0
    signalled = record is not None and os.WIFSIGNALED(record[0])
    if got.timed_out:
        return Status.TIMEOUT, f"the code ran longer than the {limits.wall_s:g} s time limit"
    if got.output_exceeded:
        return Status.OUTPUT_LIMIT, f"the output passed the {limits.output_cap // 1024} KB limit"
    if oom:
        return Status.MEMORY, "the code used more memory than allowed"
    cpu_killed = signalled and record and os.WTERMSIG(record[0]) in (signal.SIGXCPU, signal.SIGKILL)
    if cpu_killed and cpu >= limits.cpu_s - 0.05:
        return Status.TIMEOUT, f"the code used more than {limits.cpu_s:g} s of CPU time"
    if got.result_exceeded:
        return Status.ERROR, f"the result is larger than the {limits.result_cap >> 20} MB cap"
    return None


def _outcome(
    got: Collected,
    limits: RunLimits,
    status: Status,
    message: str,
    payload: bytes | None = None,
    peak_kb: int | None = None,
) -> ChildOutcome:
    record = got.exit_record
    return ChildOutcome(
        status=status,
        message=message,
        payload=payload,
        stdout=clean_text(bytes(got.stdout), limits.output_cap),
        stderr=clean_text(bytes(got.stderr), limits.output_cap),
        truncated=got.output_exceeded,
        exit_code=_describe_exit(record[0] if record else None)[1],
        duration_ms=got.elapsed_s * 1000,
        cpu_s=record[1] + record[2] if record else 0.0,
        peak_kb=peak_kb,
    )


def classify(
    got: Collected, limits: RunLimits, *, oom: bool, peak_kb: int | None = None
) -> ChildOutcome:
    """Decide the status of a finished run from the pipes, the exit record and the cgroup."""
    limited = _limit_status(got, limits, oom)
    if limited is not None:
        return _outcome(got, limits, *limited, peak_kb=peak_kb)
    try:
        payload = parse_single_frame(bytes(got.result), cap=limits.result_cap)
    except FrameError as error:
        record = got.exit_record
        exit_text = _describe_exit(record[0] if record else None)[0]
        text = exit_text if not got.result else f"invalid result: {error}"
        return _outcome(got, limits, Status.ERROR, text, peak_kb=peak_kb)
    return _outcome(got, limits, Status.OK, "", payload, peak_kb=peak_kb)


def setup_failure(stderr: bytes) -> ChildOutcome:
    """The standby child died before it was ready: the sandbox could not be built."""
    reason = clean_text(stderr, 4096).strip().splitlines()
    detail = reason[-1] if reason else "no diagnostic"
    return ChildOutcome(
        status=Status.INTERNAL, message=f"the sandbox could not be set up: {detail}"
    )


__all__ = ["READY", "ChildOutcome", "RunLimits", "classify", "clean_text", "setup_failure"]

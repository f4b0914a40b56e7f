"""Forking one standby child from the zygote: the sandboxed PID 1 of fresh namespaces.

The zygote keeps the status pipe's write end: it writes the child's host pid
at once and, after reaping it, the wait status and CPU time. The child confines
itself, runs the warm-up grading (`runner.warm`), writes b"R" on the result
pipe, waits for its one job message, runs it and writes exactly one frame.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import struct
import sys
import traceback
from dataclasses import dataclass
from typing import Any, NoReturn

from runner import child_jobs
from runner.framing import parse_single_frame, read_to_eof, write_frame
from runner.sandbox import NAMESPACES, SandboxSpec, confine, libc
from runner.sandbox.limits import apply_job_limits
from runner.warm import warm_child

PID_RECORD = struct.Struct(">q")
EXIT_RECORD = struct.Struct(">qdd")  # wait status, user and system CPU seconds
READY = b"R"
REQUEST_CAP = 64 << 20
_JOB_FD, _RESULT_FD = 3, 4


@dataclass(frozen=True)
class StandbyPipes:
    """Both ends of the five pipes; the parent ends travel to the supervisor."""

    job: tuple[int, int]
    result: tuple[int, int]
    out: tuple[int, int]
    err: tuple[int, int]
    status: tuple[int, int]

    @classmethod
    def create(cls) -> StandbyPipes:
        return cls(os.pipe(), os.pipe(), os.pipe(), os.pipe(), os.pipe())

    def parent_ends(self) -> list[int]:
        return [self.job[1], self.result[0], self.out[0], self.err[0], self.status[0]]

    def child_ends(self) -> list[int]:
        return [self.job[0], self.result[1], self.out[1], self.err[1]]


def fork_standby(spec: SandboxSpec, pipes: StandbyPipes) -> int:
    """Fork the sandboxed child; returns its pid in the zygote, which must reap it."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = libc.fork_into_namespaces(NAMESPACES) if spec.sandboxed else os.fork()
    if pid == 0:
        _inner_entry(spec, pipes)
    for fd in pipes.child_ends():
        os.close(fd)
    os.write(pipes.status[1], PID_RECORD.pack(pid))
    return pid


def report_exit(status_fd: int, status: int, usage: resource.struct_rusage) -> None:
    """Tell the supervisor how the child ended, then close its status pipe."""
    with contextlib.suppress(BrokenPipeError):
        os.write(status_fd, EXIT_RECORD.pack(status, usage.ru_utime, usage.ru_stime))
    os.close(status_fd)


def _inner_entry(spec: SandboxSpec, pipes: StandbyPipes) -> NoReturn:
    code = 0
    try:
        _inner(spec, pipes)
    except BaseException:  # noqa: BLE001 - PID 1 ends here whatever happened; stderr says why
        traceback.print_exc()
        code = 112
    _flush_quietly()
    os._exit(code)


def _wire_descriptors(pipes: StandbyPipes) -> None:
    # Park the pipes above the target numbers first so dup2 never clobbers one still needed.
    job, result = os.dup(pipes.job[0]), os.dup(pipes.result[1])
    out, err = os.dup(pipes.out[1]), os.dup(pipes.err[1])
    null = os.open("/dev/null", os.O_RDONLY)
    for source, target in ((null, 0), (out, 1), (err, 2), (job, _JOB_FD), (result, _RESULT_FD)):
        os.dup2(source, target)
    os.closerange(_RESULT_FD + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def _join_cgroups(directories: tuple[str, ...]) -> None:
    for directory in directories:
        fd = os.open(os.path.join(directory, "cgroup.procs"), os.O_WRONLY | os.O_NOFOLLOW)
        try:
            os.write(fd, b"0")  # 0 means the writing process itself
        finally:
            os.close(fd)


def _inner(spec: SandboxSpec, pipes: StandbyPipes) -> None:
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    libc.prctl(libc.PR_SET_PDEATHSIG, signal.SIGKILL)
    _wire_descriptors(pipes)
    _join_cgroups(spec.cgroup_dirs)
    os.setsid()
    confine(spec)
    warm_child()
    os.write(_RESULT_FD, READY)
    raw = parse_single_frame(read_to_eof(_JOB_FD, cap=REQUEST_CAP), cap=REQUEST_CAP)
    os.close(_JOB_FD)
    message: dict[str, Any] = json.loads(raw)
    limits = message["limits"]
    apply_job_limits(
        time_s=float(limits["time_s"]),
        memory_mb=int(limits["memory_mb"]),
        limit_address_space=spec.device != "cuda",
    )
    payload = child_jobs.run_message(message)
    _flush_quietly()
    write_frame(_RESULT_FD, payload)


def _flush_quietly() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # noqa: BLE001, S112 - a student may have broken the stream; best effort
            continue

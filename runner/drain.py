"""Draining one running child: result, stdout, stderr and status pipes, with caps and a deadline."""

from __future__ import annotations

import os
import select
import signal
import time
from dataclasses import dataclass, field

from runner.framing import holds_whole_frame
from runner.pool import Standby
from runner.standby import EXIT_RECORD

_KILL_GRACE_S = 5.0


@dataclass
class Collected:
    """Everything read from one child; flags say which limit, if any, ended it."""

    result: bytearray = field(default_factory=bytearray)
    stdout: bytearray = field(default_factory=bytearray)
    stderr: bytearray = field(default_factory=bytearray)
    status: bytearray = field(default_factory=bytearray)
    timed_out: bool = False
    output_exceeded: bool = False
    result_exceeded: bool = False
    elapsed_s: float = 0.0

    @property
    def exit_record(self) -> tuple[int, float, float] | None:
        """(wait status, user CPU s, system CPU s), as the kernel reported them."""
        if len(self.status) < EXIT_RECORD.size:
            return None
        status, user, system = EXIT_RECORD.unpack_from(self.status)
        return int(status), float(user), float(system)


def _kill(pidfd: int) -> None:
    try:
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except ProcessLookupError:
        return


class _Drain:
    def __init__(self, standby: Standby, *, output_cap: int, result_cap: int) -> None:
        self.got = Collected()
        self.buffers = {
            standby.result_r: self.got.result,
            standby.out_r: self.got.stdout,
            standby.err_r: self.got.stderr,
            standby.status_r: self.got.status,
        }
        self.open = set(self.buffers)
        self.standby = standby
        self.output_cap = output_cap
        self.result_cap = result_cap

    def read(self, fd: int) -> None:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            self.open.discard(fd)
            return
        self.buffers[fd] += chunk

    def over_cap(self) -> bool:
        if len(self.got.stdout) + len(self.got.stderr) > self.output_cap:
            self.got.output_exceeded = True
        if len(self.got.result) > self.result_cap:
            self.got.result_exceeded = True
        return self.got.output_exceeded or self.got.result_exceeded


def drain(
    standby: Standby,
    pidfd: int,
    *,
    wall_s: float,
    output_cap: int,
    result_cap: int,
    until_result: bool = False,
) -> Collected:
    """Read until the outer process has reported; kill the namespace on any limit.

    With `until_result`, stop as soon as one whole result frame has arrived: the child
    flushes its output before it writes the frame, so all of it is in the pipes by then, and
    the namespace's teardown (milliseconds) is not waited for. The exit record (wait status,
    CPU time) is then missing, so runs judged on their CPU time must not ask for this.
    """
    state = _Drain(standby, output_cap=output_cap, result_cap=result_cap)
    start = time.monotonic()
    deadline = start + wall_s
    killed = False
    while standby.status_r in state.open:
        if until_result and not killed and holds_whole_frame(state.got.result):
            break
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            if killed:
                break  # the outer process itself is stuck; give up on its status
            state.got.timed_out = True
            _kill(pidfd)
            killed, deadline = True, time.monotonic() + _KILL_GRACE_S
            continue
        ready, _, _ = select.select(list(state.open), [], [], remaining)
        for fd in ready:
            state.read(fd)
        if not killed and state.over_cap():
            _kill(pidfd)
            killed, deadline = True, time.monotonic() + _KILL_GRACE_S
    for fd in list(state.open - {standby.status_r}):
        _drain_rest(state, fd)
    state.got.elapsed_s = time.monotonic() - start
    return state.got


def _drain_rest(state: _Drain, fd: int) -> None:
    # Every writer is dead by now, so these reads end; caps still bound the memory used.
    os.set_blocking(fd, False)
    for _ in range(64):
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            return
        if len(state.buffers[fd]) < max(state.output_cap, state.result_cap) + 1:
            state.buffers[fd] += chunk

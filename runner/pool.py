"""The supervisor's handle on its zygote and the standby children it keeps ready."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.sandbox.cgroups import Cgroup, CgroupPool

_REPLY_CAP = 1 << 16
_START_TIMEOUT_S = 120.0


class ZygoteError(RuntimeError):
    """The zygote died or answered something unexpected."""


@dataclass
class Standby:
    """The supervisor's ends of one ready (or readying) child."""

    outer_pid: int
    job_w: int
    result_r: int
    out_r: int
    err_r: int
    status_r: int
    device: str
    cgroup: Cgroup | None

    def send_job(self, data: bytes) -> None:
        """Write the one job message and close the pipe so the child sees its end."""
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.job_w, view) :]
        finally:
            os.close(self.job_w)
            self.job_w = -1

    def close(self) -> None:
        for fd in (self.job_w, self.result_r, self.out_r, self.err_r, self.status_r):
            if fd >= 0:
                os.close(fd)
        self.job_w = self.result_r = self.out_r = self.err_r = self.status_r = -1


class Zygote:
    """Starts `runner.zygote` with an empty environment and asks it for standby children."""

    def __init__(
        self,
        *,
        base_spec: dict[str, Any],
        cgroups: CgroupPool,
        standby: int,
        root: dict[str, Any] | None = None,
    ) -> None:
        self._base_spec = base_spec
        self._cgroups = cgroups
        self._standby_count = standby
        self._ready: dict[str, collections.deque[Standby]] = collections.defaultdict(
            collections.deque
        )
        self._pending: collections.deque[tuple[str, Cgroup | None]] = collections.deque()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock = ours
        command = [sys.executable, "-E", "-s", "-m", "runner.zygote", str(theirs.fileno())]
        self._process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            command + ([json.dumps(root)] if root is not None else []),
            env={},
            cwd=str(Path(__file__).resolve().parent.parent),
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        theirs.close()
        self._sock.settimeout(_START_TIMEOUT_S)
        self.hello: dict[str, Any] = self._receive_json()
        self._sock.settimeout(None)

    @property
    def pid(self) -> int:
        return self._process.pid

    def _receive_json(self) -> dict[str, Any]:
        data = self._sock.recv(_REPLY_CAP)
        if not data:
            raise ZygoteError("the zygote exited")
        reply: dict[str, Any] = json.loads(data)
        return reply

    def _request(self, device: str) -> None:
        cgroup = self._cgroups.acquire()
        spec = dict(self._base_spec, device=device)
        spec["cgroup_dirs"] = sorted(set(cgroup.dirs.values())) if cgroup else []
        self._sock.send(json.dumps({"op": "fork", "spec": spec}).encode())
        self._pending.append((device, cgroup))

    def _receive_standby(self) -> None:
        message, fds, _, _ = socket.recv_fds(self._sock, _REPLY_CAP, 5)
        if not message or len(fds) != 5:
            raise ZygoteError("the zygote did not send a standby child")
        device, cgroup = self._pending.popleft()
        pid = int(json.loads(message)["pid"])
        job_w, result_r, out_r, err_r, status_r = fds
        standby = Standby(pid, job_w, result_r, out_r, err_r, status_r, device, cgroup)
        self._ready[device].append(standby)

    def take(self, device: str) -> Standby:
        """A standby child for `device`, forking one now if none is ready."""
        while not self._ready[device]:
            if not any(d == device for d, _ in self._pending):
                self._request(device)
            self._receive_standby()
        return self._ready[device].popleft()

    def replenish(self, device: str, *, at_least: int | None = None) -> None:
        """Ask for children in the background until `at_least` (default: `standby`) are
        ready or on their way."""
        wanted = self._standby_count if at_least is None else min(at_least, self._standby_count)
        for _ in range(wanted - self.on_hand(device)):
            self._request(device)

    def on_hand(self, device: str) -> int:
        """Children for `device` ready or on their way."""
        return len(self._ready[device]) + sum(1 for d, _ in self._pending if d == device)

    def devices(self) -> list[str]:
        """The devices this zygote has forked children for."""
        return [*self._ready, *(device for device, _ in self._pending if device not in self._ready)]

    def collect_ready(self) -> None:
        """Pick up the replies that have already arrived, without waiting."""
        while self._pending:
            self._sock.setblocking(False)
            try:
                self._receive_standby()
            except BlockingIOError:
                return
            finally:
                self._sock.setblocking(True)

    def standby_pids(self) -> set[int]:
        """Host pids of the children waiting for a job (they already run as the slot's uid)."""
        return {standby.outer_pid for queue in self._ready.values() for standby in queue}

    def alive(self) -> bool:
        return self._process.poll() is None

    def close(self) -> None:
        for queue in self._ready.values():
            for standby in queue:
                standby.close()
        with contextlib.suppress(OSError):
            self._sock.send(json.dumps({"op": "exit"}).encode())
        self._sock.close()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

"""The trusted supervisor: owns a zygote, hands each job to a fresh sandboxed child, judges the run.

It lives as long as the worker process that created it. It never runs student
code itself; it only reads capped bytes from pipes and classifies them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import logging
import os
import select
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.child_outcome import ChildOutcome, RunLimits, classify, setup_failure
from runner.drain import drain
from runner.framing import encode_frame
from runner.pool import Standby, Zygote
from runner.sandbox.cgroups import CgroupPool
from runner.sandbox.identity import slot_uid
from runner.sandbox.probe import sandbox_unavailable_reason
from runner.standby import PID_RECORD, READY
from runner.types import Limits, Status

RESULT_CAP = 32 << 20
PIDS_MAX = 64
_READY_TIMEOUT_S = 30.0
_MAX_SLOTS = 256
# A graded run ends once its result frame is whole: the answer's static checks keep it off the
# result channel. A timing run is judged on the CPU time in the child's exit record, and a
# snippet or generator (unchecked code) could write a frame of its own and carry on, so those
# wait for the child's exit, and only one frame before it counts.
_ENDS_ON_ITS_FRAME = frozenset({"harness"})
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SupervisorConfig:
    """Deployment facts: what children must never see, what else they may read, their limits.

    The project checkout this module lives in is always excluded, whatever is listed.
    """

    excluded_paths: tuple[str, ...] = ()
    extra_readonly_paths: tuple[str, ...] = ()
    allow_unsandboxed: bool = False
    standby: int = 2
    scratch_mb: int = 64
    cpu_quota: float = 1.0


def _slots_folder() -> Path:
    folder = Path(tempfile.gettempdir()) / f"vivabank-runner-slots-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def _claim_slot() -> tuple[int, int]:
    # An flock per slot number gives every live supervisor on the host its own uid.
    folder = _slots_folder()
    for slot in range(_MAX_SLOTS):
        fd = os.open(folder / f"slot-{slot}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return slot, fd
    raise RuntimeError("no free runner slot")


def _root_config(config: SupervisorConfig, slot: int) -> dict[str, Any]:
    """What the zygote needs to build the children's root (`sandbox.allow_list.RootConfig`)."""
    mountpoint = _slots_folder() / f"root-{slot}"
    mountpoint.mkdir(mode=0o700, exist_ok=True)
    project = str(Path(__file__).resolve().parent.parent)
    return {
        "mountpoint": str(mountpoint),
        "excluded": [project, *config.excluded_paths],
        "extra_readonly": list(config.extra_readonly_paths),
    }


class Supervisor:
    """One per worker process; runs one job at a time in a fresh child from its zygote."""

    def __init__(self, config: SupervisorConfig) -> None:
        self.config = config
        self.unsandboxed_reason = sandbox_unavailable_reason()
        self.sandboxed = self.unsandboxed_reason is None
        self.slot, self._slot_fd = _claim_slot()
        self.cgroups = CgroupPool(self.slot) if self.sandboxed else CgroupPool.disabled()
        self.cgroups.cpu.limit(config.cpu_quota)
        spec: dict[str, Any] = {
            "sandboxed": self.sandboxed,
            "uid": slot_uid(self.slot),
            "scratch_mb": config.scratch_mb,
            "cuda_device": "",
        }
        self.cuda_devices = 0
        self.zygote: Zygote | None = None
        if self.sandboxed or config.allow_unsandboxed:
            self.zygote = self._start_zygote(spec)
        if self.zygote is not None:
            self.cuda_devices = int(self.zygote.hello.get("cuda_devices", 0))
            spec["cuda_device"] = str(self.slot % self.cuda_devices) if self.cuda_devices else ""
            self.zygote.replenish("cpu")
        for note in self.probe()["notes"]:
            logger.warning("runner slot %d: %s", self.slot, note)

    def _start_zygote(self, spec: dict[str, Any]) -> Zygote | None:
        zygote = Zygote(
            base_spec=spec,
            cgroups=self.cgroups,
            standby=self.config.standby,
            root=_root_config(self.config, self.slot) if self.sandboxed else None,
        )
        error = zygote.hello.get("root_error")
        if error is None:
            return zygote
        zygote.close()
        self.sandboxed, self.unsandboxed_reason = False, f"the children's root failed: {error}"
        return None

    def probe(self) -> dict[str, Any]:
        """What confines this slot's children, and notes on every defence the host lacks."""
        notes = [] if self.sandboxed else [f"no sandbox: {self.unsandboxed_reason}"]
        if self.sandboxed and not self.cgroups.available:
            notes.append("no cgroups: no memory, pids or CPU limit beyond rlimits")
        elif self.sandboxed and not self.cgroups.cpu.available:
            notes.append(f"no CPU quota ({self.cgroups.cpu.note})")
        hello = self.zygote.hello if self.zygote is not None else {}
        return {
            "sandboxed": self.sandboxed,
            "slot": self.slot,
            "cgroup_version": self.cgroups.version,
            "cpu_quota": self.cgroups.cpu.note,
            "root_binds": hello.get("root_binds", {}),
            "notes": notes,
        }

    def refusal(self) -> str | None:
        """Why this supervisor will not run code, or None when it will."""
        if self.zygote is None:
            return f"the sandbox is unavailable ({self.unsandboxed_reason}); refusing to run"
        return None

    def run(self, message: dict[str, Any], limits: Limits, *, device: str) -> ChildOutcome:
        """Run one job message in a fresh child and classify how it ended."""
        if self.zygote is None:
            return ChildOutcome(status=Status.INTERNAL, message=self.refusal() or "")
        self.zygote.collect_ready()
        standby = self.zygote.take(device)
        try:
            return self._run_on(standby, {**message, "limits": dataclasses.asdict(limits)}, limits)
        finally:
            standby.close()
            if standby.cgroup is not None:
                self.cgroups.release(standby.cgroup)
            # One child for the job's next run at most; the rest after the job (`top_up`), so
            # forking never competes for a core with the job's run, its record or its result.
            self.zygote.replenish(device, at_least=1)

    def top_up(self) -> None:
        """Fork the standby children used up, for every device: between jobs, when the
        worker is idle. A dead zygote is left alone: the next job's `get_supervisor` starts a
        new one."""
        if self.zygote is None or not self.zygote.alive():
            return
        for device in self.zygote.devices():
            self.zygote.replenish(device)

    def _run_on(self, standby: Standby, message: dict[str, Any], limits: Limits) -> ChildOutcome:
        inner_pid = _await_ready(standby)
        if inner_pid is None:
            return setup_failure(_read_available(standby.err_r))
        pidfd = os.pidfd_open(inner_pid)
        try:
            oom_before, counting_peak = 0, False
            if standby.cgroup is not None:
                self.cgroups.set_limits(standby.cgroup, memory_mb=limits.memory_mb, pids=PIDS_MAX)
                oom_before = self.cgroups.oom_kills(standby.cgroup)
                counting_peak = self.cgroups.reset_peak(standby.cgroup)
            standby.send_job(encode_frame(json.dumps(message).encode()))
            run_limits = RunLimits(
                wall_s=limits.time_s,
                cpu_s=float(max(1, -(-limits.time_s // 1))),
                output_cap=limits.output_kb * 1024,
                result_cap=RESULT_CAP,
            )
            got = drain(
                standby,
                pidfd,
                wall_s=limits.time_s,
                output_cap=run_limits.output_cap,
                result_cap=RESULT_CAP,
                until_result=message["kind"] in _ENDS_ON_ITS_FRAME,
            )
            oom = standby.cgroup is not None and self.cgroups.oom_kills(standby.cgroup) > oom_before
            peak = (
                self.cgroups.peak_kb(standby.cgroup) if counting_peak and standby.cgroup else None
            )
            return classify(got, run_limits, oom=oom, peak_kb=peak)
        finally:
            _kill_quietly(pidfd)
            os.close(pidfd)

    def close(self) -> None:
        if self.zygote is not None:
            self.zygote.close()
        self.cgroups.close()
        with contextlib.suppress(OSError):
            (_slots_folder() / f"root-{self.slot}").rmdir()
        os.close(self._slot_fd)


def _read_exact(fd: int, size: int, timeout: float) -> bytes:
    data = b""
    while len(data) < size:
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            break
        chunk = os.read(fd, size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _await_ready(standby: Standby) -> int | None:
    """The sandboxed PID 1's host pid once it has confined itself, or None if it failed."""
    record = _read_exact(standby.status_r, PID_RECORD.size, _READY_TIMEOUT_S)
    if len(record) != PID_RECORD.size:
        return None
    if _read_exact(standby.result_r, 1, _READY_TIMEOUT_S) != READY:
        return None
    return int(PID_RECORD.unpack(record)[0])


def _read_available(fd: int) -> bytes:
    os.set_blocking(fd, False)
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return b""


def _kill_quietly(pidfd: int) -> None:
    try:
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except ProcessLookupError:
        return

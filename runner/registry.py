"""One supervisor per worker process, started on first use and closed at exit."""

from __future__ import annotations

import atexit
import os
import threading
from pathlib import Path

from django.conf import settings

from runner.supervisor import Supervisor, SupervisorConfig

_lock = threading.Lock()
_state: dict[str, Supervisor | int | None] = {"supervisor": None, "pid": None}


def default_config() -> SupervisorConfig:
    """Children never see the project or its data folder; settings add paths and the CPU quota."""
    base = Path(settings.BASE_DIR).resolve()
    var = Path(settings.VAR_DIR).resolve()
    return SupervisorConfig(
        excluded_paths=(str(base), str(var)),
        extra_readonly_paths=tuple(settings.RUNNER_EXTRA_READONLY_PATHS),
        allow_unsandboxed=bool(settings.RUNNER_ALLOW_UNSANDBOXED),
        cpu_quota=float(settings.RUNNER_CPU_QUOTA),
    )


def _single_threaded_torch() -> None:
    # Comparisons are tiny; on a small host, worker processes must not fight over cores.
    import torch

    torch.set_num_threads(1)


def get_supervisor() -> Supervisor:
    """This process's supervisor; a forked process gets its own, never its parent's."""
    with _lock:
        current = _state["supervisor"]
        if isinstance(current, Supervisor) and _state["pid"] == os.getpid():
            if current.zygote is None or current.zygote.alive():
                return current
            current.close()
        _single_threaded_torch()
        supervisor = Supervisor(default_config())
        _state["supervisor"], _state["pid"] = supervisor, os.getpid()
        return supervisor


def started() -> bool:
    """Whether this process runs a supervisor (workers do; the web tier never should)."""
    with _lock:
        return isinstance(_state["supervisor"], Supervisor) and _state["pid"] == os.getpid()


def top_up() -> None:
    """Fork the standby children this process's last job used up, if it runs a supervisor."""
    with _lock:
        current = _state["supervisor"]
        if not (isinstance(current, Supervisor) and _state["pid"] == os.getpid()):
            return
    current.top_up()


def shutdown() -> None:
    """Stop this process's zygote and free its slot (worker shutdown, end of tests)."""
    with _lock:
        current = _state["supervisor"]
        if isinstance(current, Supervisor) and _state["pid"] == os.getpid():
            current.close()
        _state["supervisor"], _state["pid"] = None, None


atexit.register(shutdown)

"""Confining one child: the steps run in order inside the sandboxed PID 1.

Root-only steps come first (mounts, limits), then the uid drop, no-new-privs and
seccomp. After `apply_mounts` the child sees only the allow-listed root the
zygote built (`rootfs.py`): the interpreter, the virtualenv and the libraries,
read-only. What the child imports lazily must live there; the project does not.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from runner.sandbox import libc
from runner.sandbox.identity import drop_privileges
from runner.sandbox.limits import apply_base_limits
from runner.sandbox.mounts import MountPlan, apply_mounts
from runner.sandbox.syscall_filter import prebuilt_filter

NAMESPACES = libc.CLONE_NEWPID | libc.CLONE_NEWNET | libc.CLONE_NEWIPC | libc.CLONE_NEWNS
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")

__all__ = ["NAMESPACES", "MountPlan", "SandboxSpec", "child_environment", "confine"]


@dataclass(frozen=True)
class SandboxSpec:
    """How one standby child is confined; `sandboxed=False` means rlimits only (development)."""

    sandboxed: bool
    uid: int
    mounts: MountPlan
    cgroup_dirs: tuple[str, ...] = ()
    device: str = "cpu"
    cuda_device: str = ""
    extra_env: dict[str, str] = field(default_factory=dict)


def child_environment(spec: SandboxSpec) -> dict[str, str]:
    """The whole environment a child sees: nothing inherited, one thread for BLAS/OpenMP."""
    env = {name: "1" for name in THREAD_VARIABLES}
    env.update(HOME="/tmp", PATH="/usr/bin:/bin", LANG="C.UTF-8", TMPDIR="/tmp")  # noqa: S108
    if spec.device == "cuda":
        env["CUDA_VISIBLE_DEVICES"] = spec.cuda_device
    env.update(spec.extra_env)
    return env


def confine(spec: SandboxSpec) -> None:
    """Run every confinement step for the current process (the namespace's PID 1)."""
    if spec.sandboxed:
        apply_mounts(spec.mounts)
    apply_base_limits(file_size_mb=spec.mounts.scratch_mb)
    os.environ.clear()
    os.environ.update(child_environment(spec))
    if not spec.sandboxed:
        return
    syscall_filter = prebuilt_filter()
    drop_privileges(spec.uid)
    syscall_filter.load()

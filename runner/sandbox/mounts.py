"""The child's private mount tree: scratch tmpfs, a fresh /proc, secrets hidden."""

from __future__ import annotations

import os
from dataclasses import dataclass

from runner.sandbox import libc

_HIDE_OPTIONS = "size=1m,nr_inodes=512,mode=755"
_SAFE = libc.MS_NOSUID | libc.MS_NODEV


@dataclass(frozen=True)
class MountPlan:
    """Paths to cover with an empty tmpfs, and public paths inside them to re-show read-only."""

    hidden: tuple[str, ...]
    reexposed: tuple[str, ...]
    scratch_mb: int = 64
    shm_mb: int = 16


def _is_under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _open_reexposed(plan: MountPlan) -> dict[str, int]:
    # O_PATH handles survive the overmount, so a hidden parent can still give back its public child.
    handles: dict[str, int] = {}
    for path in plan.reexposed:
        inside_hidden = any(_is_under(path, hidden) for hidden in plan.hidden)
        if inside_hidden and os.path.isdir(path):
            handles[path] = os.open(path, os.O_PATH | os.O_DIRECTORY)
    return handles


def _hide(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        libc.mount("tmpfs", path, "tmpfs", _SAFE | libc.MS_NOEXEC, _HIDE_OPTIONS)


def _bind_read_only(handle: int, target: str) -> None:
    os.makedirs(target, mode=0o755, exist_ok=True)
    libc.mount(f"/proc/self/fd/{handle}", target, None, libc.MS_BIND | libc.MS_REC)
    flags = libc.MS_REMOUNT | libc.MS_BIND | libc.MS_RDONLY | libc.MS_NOSUID | libc.MS_NODEV
    libc.mount("none", target, None, flags)


def apply_mounts(plan: MountPlan) -> None:
    """Build the child's view of the filesystem; call as root in a new mount namespace."""
    libc.mount("none", "/", None, libc.MS_REC | libc.MS_PRIVATE)
    handles = _open_reexposed(plan)
    for path in sorted(set(plan.hidden), key=len):
        _hide(path)
    for path, handle in handles.items():
        _bind_read_only(handle, path)
        os.close(handle)
    scratch = f"size={plan.scratch_mb}m,nr_inodes=4096,mode=1777"
    libc.mount("tmpfs", "/tmp", "tmpfs", _SAFE, scratch)  # noqa: S108 - a fresh private tmpfs
    if os.path.isdir("/dev/shm"):  # noqa: S108 - replaced by a private tmpfs below
        shm = f"size={plan.shm_mb}m,nr_inodes=1024,mode=1777"
        libc.mount("tmpfs", "/dev/shm", "tmpfs", _SAFE | libc.MS_NOEXEC, shm)  # noqa: S108
    libc.mount("proc", "/proc", "proc", _SAFE | libc.MS_NOEXEC)
    # The old cwd may sit under a hidden path and would still reach it through relative names.
    os.chdir("/tmp")  # noqa: S108 - the private scratch mount above

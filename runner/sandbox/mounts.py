"""The child's mount steps: private /tmp, /dev/shm and /proc in the allow-listed root, then pivot.

The root itself is built once in the zygote (`rootfs.py`); a child only adds
what must be its own and switches to it, so the host's tree is gone for good.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from runner.sandbox import libc

SCRATCH = ("/tmp", "/dev/shm")  # noqa: S108 - fresh private tmpfs in every child
_SAFE = libc.MS_NOSUID | libc.MS_NODEV
_READ_ONLY = libc.MS_REMOUNT | libc.MS_BIND | libc.MS_RDONLY | libc.MS_NOSUID


@dataclass(frozen=True)
class Entry:
    """One thing in the child's root: a read-only bind of `source`, a symlink, or an empty cover."""

    target: str
    source: str = ""
    link: str = ""
    device: bool = False

    @property
    def kind(self) -> str:
        if self.link:
            return "link"
        return "bind" if self.source else "cover"


@dataclass(frozen=True)
class MountPlan:
    """Where the zygote built this child's root, what must be placed inside its scratch, sizes."""

    root: str = ""
    in_scratch: tuple[Entry, ...] = ()
    scratch_mb: int = 64
    shm_mb: int = 16


def is_under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _make_target(path: str, *, directory: bool) -> None:
    if os.path.lexists(path):
        return
    os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
    if directory:
        os.mkdir(path, 0o755)
    else:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0o444))


def place(entry: Entry, root: str) -> None:
    """Put `entry` into the tree at `root` (a bind is made read-only at once)."""
    target = root + entry.target
    if entry.kind == "link":
        if not os.path.lexists(target):
            os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
            os.symlink(entry.link, target)
        return
    if entry.kind == "cover":
        _make_target(target, directory=True)
        libc.mount("tmpfs", target, "tmpfs", _SAFE, "size=4k,nr_inodes=64,mode=755")
        return
    _make_target(target, directory=os.path.isdir(entry.source))
    libc.mount(entry.source, target, None, libc.MS_BIND)
    libc.mount("none", target, None, _READ_ONLY | (0 if entry.device else libc.MS_NODEV))


def apply_mounts(plan: MountPlan) -> None:
    """Give this child its own scratch and /proc inside the prepared root and switch to it.

    Call as root in a mount namespace cloned from the zygote's (private propagation).
    """
    root = plan.root
    tmp, shm = (root + folder for folder in SCRATCH)
    scratch = f"size={plan.scratch_mb}m,nr_inodes=4096,mode=1777"
    libc.mount("tmpfs", tmp, "tmpfs", _SAFE, scratch)
    shared = f"size={plan.shm_mb}m,nr_inodes=1024,mode=1777"
    libc.mount("tmpfs", shm, "tmpfs", _SAFE | libc.MS_NOEXEC, shared)
    libc.mount("proc", root + "/proc", "proc", _SAFE | libc.MS_NOEXEC)
    for entry in plan.in_scratch:  # e.g. a virtualenv that lives under /tmp
        place(entry, root)
    os.chdir(root)
    libc.pivot_root(".", ".")  # the old root now sits on top of the new one, so detach it
    libc.umount2(".", libc.MNT_DETACH)
    os.chdir("/tmp")  # noqa: S108 - the private scratch mount above

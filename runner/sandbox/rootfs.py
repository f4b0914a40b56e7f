"""Building the children's allow-listed roots once, in the zygote's own mount namespace.

The zygote leaves the host's mount namespace, mounts a small tmpfs on the
supervisor's mountpoint and builds one read-only root per device kind under it
(`cpu`, and `cuda` on a GPU worker). Every child's namespace is a copy of the
zygote's, so a child only adds its scratch and /proc and pivots (`mounts.py`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from runner.sandbox import libc
from runner.sandbox.allow_list import RootConfig, allow_list, in_scratch
from runner.sandbox.mounts import Entry, place

_SAFE = libc.MS_NOSUID | libc.MS_NODEV
_READ_ONLY = libc.MS_REMOUNT | libc.MS_RDONLY | _SAFE
_TEMPLATE_OPTIONS = "size=1m,nr_inodes=4096,mode=755"


@dataclass(frozen=True)
class BuiltRoot:
    """One prepared root, and the entries each child places into its own scratch."""

    path: str
    in_scratch: tuple[Entry, ...]
    binds: tuple[str, ...]


def _build(path: str, entries: list[Entry]) -> BuiltRoot:
    os.mkdir(path, 0o755)
    libc.mount("tmpfs", path, "tmpfs", _SAFE, _TEMPLATE_OPTIONS)
    for folder in ("/tmp", "/dev/shm", "/proc"):  # noqa: S108 - mountpoints for each child's own
        os.makedirs(path + folder, mode=0o755, exist_ok=True)
    later = tuple(e for e in entries if in_scratch(e))
    for entry in entries:
        if entry not in later:
            place(entry, path)
    for entry in entries:
        if entry.kind == "cover" and entry not in later:
            libc.mount("none", path + entry.target, None, _READ_ONLY)
    libc.mount("none", path, None, _READ_ONLY)
    binds = tuple(e.source for e in entries if e.kind == "bind")
    return BuiltRoot(path=path, in_scratch=later, binds=binds)


def build_roots(config: RootConfig, *, cuda: bool) -> dict[str, BuiltRoot]:
    """Leave the host's mount namespace and build the `cpu` (and `cuda`) roots; call as root."""
    libc.unshare(libc.CLONE_NEWNS)
    libc.mount("none", "/", None, libc.MS_REC | libc.MS_PRIVATE)
    libc.mount("tmpfs", config.mountpoint, "tmpfs", _SAFE, _TEMPLATE_OPTIONS)
    roots = {"cpu": _build(config.mountpoint + "/cpu", allow_list(config, cuda=False))}
    if cuda:
        roots["cuda"] = _build(config.mountpoint + "/cuda", allow_list(config, cuda=True))
    libc.mount("none", config.mountpoint, None, _READ_ONLY)
    return roots

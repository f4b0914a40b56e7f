"""What a child may see: computed once in the zygote from its own interpreter and loaded libraries.

Everything is named by its real path and bound there; every symlink met on
the way to an allowed path is recreated, so the paths Python already holds
(sys.path, module files) still resolve. The project checkout and VAR_DIR are
never allowed, even when an allowed folder contains them (they get an empty cover).
"""

from __future__ import annotations

import glob
import os
import sys
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass

from runner.sandbox.mounts import SCRATCH, Entry, is_under

DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
# Only the loader's cache, for libraries opened lazily by name (libcuda): strace of torch jobs
# showed no other /etc read (the time zone is loaded in the zygote; CPython uses localtime_r).
ETC_FILES = ("/etc/ld.so.cache",)
_CUDA_LIBRARY_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/nvidia/lib64")
_MAX_LINKS = 40


@dataclass(frozen=True)
class RootConfig:
    """Deployment facts the zygote cannot know: what must stay hidden, what else to show."""

    mountpoint: str
    excluded: tuple[str, ...]
    extra_readonly: tuple[str, ...] = ()


def python_paths() -> list[str]:
    """The interpreter's install, the virtualenv, the stdlib's real folders and sys.path."""
    paths = [sys.base_prefix, sys.prefix, *sys.path]
    paths += [sysconfig.get_path(name) for name in ("stdlib", "platstdlib")]
    return [p for p in paths if p and os.path.exists(p)]


def library_dirs() -> list[str]:
    """Folders of every shared library mapped into this process (torch's, numpy's, libc's)."""
    folders: set[str] = set()
    with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
        for line in maps:
            fields = line.split(maxsplit=5)
            path = fields[5].strip() if len(fields) == 6 else ""
            if path.startswith("/") and ".so" in os.path.basename(path) and os.path.isfile(path):
                folders.add(os.path.dirname(path))
    return sorted(folders)


def cuda_paths() -> list[str]:
    """The NVIDIA device nodes, the driver's library folder and /sys, only for a `gpu` worker."""
    nodes = [p for p in glob.glob("/dev/nvidia*") if not os.path.isdir(p)]
    caps = [p for p in glob.glob("/dev/nvidia-caps") if os.path.isdir(p)]
    driver = [d for d in _CUDA_LIBRARY_DIRS if glob.glob(os.path.join(d, "libcuda.so*"))]
    return [*nodes, *caps, *driver, "/sys"]


def symlinks_along(path: str) -> list[Entry]:
    """Every symlink met while resolving `path`, in order, as link entries."""
    links: list[Entry] = []
    pending = [part for part in path.split("/") if part]
    current = "/"
    while pending:
        name = pending.pop(0)
        if name in (".", ".."):
            current = os.path.dirname(current) if name == ".." else current
            continue
        candidate = os.path.join(current, name)
        if not os.path.islink(candidate) or len(links) >= _MAX_LINKS:
            current = candidate
            continue
        text = os.readlink(candidate)
        links.append(Entry(target=candidate, link=text))
        pending = [part for part in text.split("/") if part] + pending
        current = "/" if text.startswith("/") else current
    return links


def _outermost(paths: Iterable[str]) -> list[str]:
    kept: list[str] = []
    for path in sorted(set(paths), key=len):
        if not any(is_under(path, outer) for outer in kept):
            kept.append(path)
    return kept


def _allowed(path: str, excluded: list[str], venv: str) -> bool:
    # Nothing may cover a child's own scratch or /proc (a listed "/tmp" or "/" would).
    if any(is_under(own, path) for own in (*SCRATCH, "/proc")):
        return False
    return is_under(path, venv) or not any(is_under(path, hidden) for hidden in excluded)


def _root_links(binds: list[str]) -> list[Entry]:
    # /lib -> usr/lib and the like: the loader's cache names libraries through them.
    links = []
    for name in sorted(os.listdir("/")):
        path = "/" + name
        if os.path.islink(path):
            real = os.path.realpath(path)
            if any(is_under(real, b) or is_under(b, real) for b in binds):
                links.append(Entry(target=path, link=os.readlink(path)))
    return links


def allow_list(config: RootConfig, *, cuda: bool) -> list[Entry]:
    """Every entry of the child's root, parents before children."""
    excluded = [os.path.realpath(p) for p in config.excluded]
    venv = os.path.realpath(sys.prefix)
    wanted = [*python_paths(), *library_dirs(), *config.extra_readonly, *DEVICES, *ETC_FILES]
    wanted += cuda_paths() if cuda else []
    wanted = [p for p in wanted if os.path.exists(p)]
    kept = [p for p in wanted if _allowed(os.path.realpath(p), excluded, venv)]
    binds = _outermost(os.path.realpath(p) for p in kept)
    entries = [Entry(target=b, source=b, device=b.startswith("/dev/")) for b in binds]
    covers = [h for h in excluded if any(is_under(h, b) and h != b for b in binds)]
    entries += [Entry(target=h) for h in covers]
    # Links keep the names Python already holds (a venv reached through a symlink) working.
    links = {e.target: e for p in kept for e in symlinks_along(p)}
    entries += [*links.values(), *(e for e in _root_links(binds) if e.target not in links)]
    return sorted(entries, key=lambda e: (e.target.count("/"), e.target))


def in_scratch(entry: Entry) -> bool:
    """Whether `entry` lies under a child's own /tmp or /dev/shm, so each child places it."""
    return any(is_under(entry.target, folder) for folder in SCRATCH)

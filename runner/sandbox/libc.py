"""Thin ctypes wrappers for the Linux calls the standard library lacks."""

from __future__ import annotations

import ctypes
import ctypes.util
import os

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWCGROUP = 0x02000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.mount.argtypes = [
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_char_p,
]
_libc.unshare.argtypes = [ctypes.c_int]
_libc.prctl.argtypes = [
    ctypes.c_int,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
]


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def mount(source: str, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    _check(
        _libc.mount(
            source.encode(),
            target.encode(),
            fstype.encode() if fstype else None,
            flags,
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def madvise(start: int, length: int, advice: int) -> bool:
    """madvise(2) on a range; False (errno left in ctypes) where the kernel refuses."""
    return bool(_libc.madvise(start, length, advice) == 0)


_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]


def umount2(target: str, flags: int) -> None:
    _check(_libc.umount2(target.encode(), flags), f"umount {target}")


_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}


def pivot_root(new_root: str, put_old: str) -> None:
    number = _SYS_PIVOT_ROOT[os.uname().machine]
    result = _libc.syscall(ctypes.c_long(number), new_root.encode(), put_old.encode())
    _check(int(result), "pivot_root")


def prctl(option: int, arg: int = 0) -> None:
    _check(_libc.prctl(option, arg, 0, 0, 0), f"prctl {option}")


_SYS_CLONE = {"x86_64": 56, "aarch64": 220}
# PyDLL keeps the GIL across the call, so both processes resume holding it, as after os.fork.
_libc_gil = ctypes.PyDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc_gil.syscall.restype = ctypes.c_long


def fork_into_namespaces(flags: int) -> int:
    """fork() that puts the child straight into new namespaces (it is PID 1 of a new one).

    One page-table copy instead of unshare-then-fork's two; Python's own fork
    hooks run exactly as they do around os.fork.
    """
    import signal

    number = _SYS_CLONE[os.uname().machine]
    ctypes.pythonapi.PyOS_BeforeFork()
    pid = _libc_gil.syscall(
        ctypes.c_long(number),
        ctypes.c_ulong(flags | signal.SIGCHLD),
        ctypes.c_void_p(0),
        ctypes.c_void_p(0),
        ctypes.c_void_p(0),
        ctypes.c_ulong(0),
    )
    if pid == 0:
        ctypes.pythonapi.PyOS_AfterFork_Child()
        return 0
    ctypes.pythonapi.PyOS_AfterFork_Parent()
    if pid < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"clone: {os.strerror(err)}")
    return int(pid)

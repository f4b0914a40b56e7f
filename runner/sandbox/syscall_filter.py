"""The seccomp filter loaded last in the child: defence in depth behind the namespaces."""

from __future__ import annotations

import errno
import functools
import socket

import pyseccomp

from runner.sandbox import libc

DENIED = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "userfaultfd",
    "open_by_handle_at",
    "name_to_handle_at",
    "kexec_load",
    "init_module",
    "finit_module",
    "delete_module",
    "swapon",
    "swapoff",
    "reboot",
    "acct",
    "mknod",
    "mknodat",
    "fsopen",
    "fsmount",
    "move_mount",
    "open_tree",
)
_NAMESPACE_FLAGS = (
    libc.CLONE_NEWNS,
    libc.CLONE_NEWIPC,
    libc.CLONE_NEWUSER,
    libc.CLONE_NEWPID,
    libc.CLONE_NEWNET,
    libc.CLONE_NEWUTS,
    libc.CLONE_NEWCGROUP,
)


def build_filter() -> pyseccomp.SyscallFilter:
    """Allow by default; refuse the syscalls that reach outside the sandbox with EPERM."""
    refuse = pyseccomp.ERRNO(errno.EPERM)
    flt = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    for name in DENIED:
        flt.add_rule(refuse, name)
    flt.add_rule(refuse, "socket", pyseccomp.Arg(0, pyseccomp.NE, socket.AF_UNIX))
    flt.add_rule(refuse, "socketpair", pyseccomp.Arg(0, pyseccomp.NE, socket.AF_UNIX))
    for flag in _NAMESPACE_FLAGS:
        flt.add_rule(refuse, "clone", pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag))
    # clone3 hides its flags behind a pointer; ENOSYS makes libc fall back to clone.
    flt.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "clone3")
    return flt


@functools.cache
def prebuilt_filter() -> pyseccomp.SyscallFilter:
    """The filter built once (in the zygote, before forking); each child only loads its copy."""
    return build_filter()

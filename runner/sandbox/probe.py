"""Can this host build the sandbox? Checked once, by the supervisor, before it starts a zygote."""

from __future__ import annotations

import os

from runner.sandbox import NAMESPACES, libc


def sandbox_unavailable_reason() -> str | None:
    """None when namespaces, mounts and seccomp all work here; otherwise why not."""
    if os.geteuid() != 0:
        return "the worker does not run as root, so it cannot create namespaces or drop to a uid"
    try:
        import pyseccomp  # noqa: F401 - only checking that libseccomp loads
    except (ImportError, OSError) as error:
        return f"seccomp is unavailable: {error}"
    pid = os.fork()
    if pid == 0:
        try:
            libc.unshare(NAMESPACES)
            libc.mount("none", "/", None, libc.MS_REC | libc.MS_PRIVATE)
        except OSError:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return None
    return "the kernel refused new PID, network, IPC or mount namespaces"

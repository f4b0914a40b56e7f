"""The warm zygote: imports torch once, then forks sandboxed standby children on request.

Started by the supervisor with an empty environment and only its control socket
(an AF_UNIX pair whose number is the first argument; the second, when the
sandbox is on, is the JSON of the children's root: `sandbox.allow_list.RootConfig`).
It never receives a reference solution or reference outputs: a forked child can
read all of its memory. Run as `python -E -s -m runner.zygote FD [ROOT]`.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from runner.sandbox import SandboxSpec
    from runner.sandbox.rootfs import BuiltRoot

_MAX_MESSAGE = 1 << 20


def _prepare_environment() -> None:
    # Before torch loads: one thread everywhere, and a CUDA probe that does not initialise CUDA.
    os.environ.update(
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        PYTORCH_NVML_BASED_CUDA_CHECK="1",
    )


def _warm_up() -> dict[str, Any]:
    import torch

    # Must precede every torch op: a multi-threaded op here makes forked children hang on a futex.
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    import numpy  # noqa: F401 - imported for the children
    import pyseccomp  # noqa: F401 - the filter library must load before the mount switch
    import torch.nn.functional  # noqa: F401

    from runner import child_jobs, standby  # noqa: F401 - everything the child runs
    from runner.sandbox.syscall_filter import prebuilt_filter
    from runner.warm import warm_harness

    with contextlib.suppress(OSError):  # without seccomp only unsandboxed runs are possible
        prebuilt_filter()
    available = torch.cuda.is_available()  # NVML-based: leaves CUDA uninitialised
    if not available:
        x = torch.randn(8, 8, requires_grad=True)
        (x @ x).tanh().sum().backward()  # type: ignore[no-untyped-call]  # torch leaves it untyped
    warm_harness(autograd=not available)
    return {
        "pid": os.getpid(),
        "cuda_available": available,
        "cuda_devices": torch.cuda.device_count() if available else 0,
        "cuda_initialized": bool(torch.cuda.is_initialized()),  # type: ignore[no-untyped-call]  # untyped in torch
    }


def _build_roots(raw: str, *, cuda: bool) -> tuple[dict[str, BuiltRoot], dict[str, Any]]:
    """The children's roots, and what the hello says about them (their binds, or the error)."""
    from runner.sandbox.allow_list import RootConfig
    from runner.sandbox.rootfs import build_roots

    fields = json.loads(raw)
    config = RootConfig(
        mountpoint=fields["mountpoint"],
        excluded=tuple(fields["excluded"]),
        extra_readonly=tuple(fields["extra_readonly"]),
    )
    try:
        roots = build_roots(config, cuda=cuda)
    except OSError as error:
        return {}, {"root_error": str(error)}
    return roots, {"root_binds": {kind: list(root.binds) for kind, root in roots.items()}}


class _Zygote:
    """Forks standby children on request and reports each one's exit once it is reaped."""

    def __init__(self, sock: socket.socket, roots: dict[str, BuiltRoot]) -> None:
        self.sock = sock
        self.roots = roots
        self.status_fds: dict[int, int] = {}
        self.wake_r, wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)

    def fork(self, message: dict[str, Any]) -> None:
        from runner.standby import StandbyPipes, fork_standby

        pipes = StandbyPipes.create()
        pid = fork_standby(_spec_from(message["spec"], self.roots), pipes)
        self.status_fds[pid] = pipes.status[1]
        sent = pipes.parent_ends()
        try:
            socket.send_fds(self.sock, [json.dumps({"op": "standby", "pid": pid}).encode()], sent)
        finally:
            for fd in sent:
                os.close(fd)

    def reap(self) -> None:
        from runner.standby import report_exit

        while True:
            try:
                os.read(self.wake_r, 4096)
            except BlockingIOError:
                break
        while self.status_fds:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
            if pid == 0:
                return
            report_exit(self.status_fds.pop(pid), status, usage)

    def serve(self) -> None:
        """Answer fork requests until the supervisor closes the socket or says exit."""
        while True:
            ready, _, _ = select.select([self.sock, self.wake_r], [], [])
            if self.wake_r in ready:
                self.reap()
            if self.sock not in ready:
                continue
            try:
                data = self.sock.recv(_MAX_MESSAGE)
            except ConnectionError:
                return
            if not data or json.loads(data).get("op") == "exit":
                return
            try:
                self.fork(json.loads(data))
            except ConnectionError:
                # The supervisor went away mid-request; the standby child sees its
                # pipes close and exits, so there is nothing left to hand over.
                return


def _spec_from(raw: dict[str, Any], roots: dict[str, BuiltRoot]) -> SandboxSpec:
    from runner.sandbox import MountPlan, SandboxSpec

    root = roots.get(str(raw["device"]))
    return SandboxSpec(
        sandboxed=bool(raw["sandboxed"]),
        uid=int(raw["uid"]),
        mounts=MountPlan(
            root=root.path if root else "/nonexistent",
            in_scratch=root.in_scratch if root else (),
            scratch_mb=int(raw["scratch_mb"]),
        ),
        cgroup_dirs=tuple(raw["cgroup_dirs"]),
        device=str(raw["device"]),
        cuda_device=str(raw["cuda_device"]),
    )


def main() -> None:
    from runner.zygote_memory import settle_for_forking

    _prepare_environment()
    hello = _warm_up()
    roots: dict[str, BuiltRoot] = {}
    if len(sys.argv) > 2:
        roots, described = _build_roots(sys.argv[2], cuda=bool(hello["cuda_available"]))
        hello.update(described)
    hello.update(settle_for_forking())  # last, so nothing after it dirties the settled heap
    sock = socket.socket(fileno=int(sys.argv[1]))
    try:
        sock.send(json.dumps({"op": "hello", **hello}).encode())
    except ConnectionError:
        sys.exit(0)  # the supervisor died while torch was importing: nobody to serve
    _Zygote(sock, roots).serve()
    sys.exit(0)


if __name__ == "__main__":
    main()

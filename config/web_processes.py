"""Start and stop a real gunicorn serving this checkout: for the fault tests and the benchmarks,
which must reach the site over HTTP exactly as a browser or an LMS does."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from django.conf import settings

from config.celery_workers import database_url, stop_group


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_healthy(url: str, process: subprocess.Popen[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1):  # noqa: S310 (loopback)
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"gunicorn did not answer /healthz within {timeout_s} s")


@contextmanager
def gunicorn(
    *, workers: int = 2, env: Mapping[str, str] | None = None, port: int | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """gunicorn with `workers` sync processes on loopback, on this process's database; yields
    its base URL and the master process (stopped when the block ends)."""
    port = port or free_port()
    environment = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "SECRET_KEY": os.environ.get("SECRET_KEY", "test-only"),
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "LOG_LEVEL": "WARNING",
        **(env or {}),
    }
    command = [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}"]
    command += ["--workers", str(workers), "--timeout", "30", "--log-level", "warning"]
    # S603: the argv is ours, built above.
    process = subprocess.Popen(  # noqa: S603
        command, env=environment, cwd=settings.BASE_DIR, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, process, timeout_s=60)
        yield url, process
    finally:
        stop_group(process, timeout_s=30)

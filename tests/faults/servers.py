"""Real server processes for the fault and load tests: gunicorn serving this checkout."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from config.celery_workers import database_url

ROOT = Path(__file__).resolve().parents[2]


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
    process = subprocess.Popen(command, env=environment, cwd=ROOT, start_new_session=True)  # noqa: S603
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, process, timeout_s=60)
        yield url, process
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def kill_web_workers(master: subprocess.Popen[bytes]) -> int:
    """SIGKILL every gunicorn worker process (the master starts new ones); how many."""
    listed = Path(f"/proc/{master.pid}/task/{master.pid}/children").read_text().split()
    for child in listed:
        os.kill(int(child), signal.SIGKILL)
    return len(listed)


PG_BIN = Path("/usr/lib/postgresql/15/bin")


class PrivatePostgres:
    """A throwaway PostgreSQL cluster on its own port (run as the `postgres` user), so a test
    can stop and restart it while the machine's own server stays up."""

    def __init__(self, folder: Path, port: int) -> None:
        self.folder, self.port = folder, port
        self.data = folder / "data"

    def _as_postgres(self, *argv: str) -> None:
        command = ["/usr/sbin/runuser", "-u", "postgres", "--", *argv]
        subprocess.run(command, check=True, capture_output=True, timeout=120)  # noqa: S603

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def init(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        shutil.chown(self.folder, user="postgres")
        self._as_postgres(
            str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres"
        )

    def pg_ctl(self, action: str, *extra: str) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1"
        self._as_postgres(
            *(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "log")),
            *("-o", options, "-w", action, *extra),
        )


@contextmanager
def private_postgres(folder: Path) -> Iterator[PrivatePostgres]:
    """A started private cluster, stopped (immediately) when the block ends."""
    server = PrivatePostgres(folder, free_port())
    server.init()
    server.pg_ctl("start")
    try:
        yield server
    finally:
        server.pg_ctl("stop", "-m", "immediate")

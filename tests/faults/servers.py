"""Real server processes for the fault tests: gunicorn serving this checkout (started by
`config.web_processes`, which the benchmarks share), a private PostgreSQL."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from config.celery import app
from config.celery_workers import use_broker
from config.web_processes import free_port, gunicorn

ROOT = Path(__file__).resolve().parents[2]
__all__ = [
    "ROOT",
    "PrivatePostgres",
    "broker_unreachable",
    "free_port",
    "gunicorn",
    "kill_web_workers",
    "private_postgres",
]


@contextmanager
def broker_unreachable() -> Iterator[None]:
    """This process's Celery app pointed at a Redis port nobody listens on (Redis down or
    restarting), and back to its broker after."""
    before = str(app.conf.broker_url)
    use_broker(f"redis://127.0.0.1:{free_port()}/0")
    try:
        yield
    finally:
        use_broker(before)


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

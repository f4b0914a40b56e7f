"""`make run`'s web server keeps a class's simultaneous connections waiting, never resets them.

Django's runserver listens with a backlog of 10, so 40 students pressing Sign in together met
reset connections; scripts/run-dev.sh serves with `manage.py devserver` (web/management/).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUDENTS = 40


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listen_backlog(port: int) -> int:
    """The backlog of the socket listening on `port` (ss's Send-Q for a listening socket)."""
    lines = subprocess.run(  # noqa: S603 (fixed arguments)
        ["ss", "-ltnH", f"sport = :{port}"],  # noqa: S607 (ss from the PATH)
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    return int(lines[0].split()[2])


@pytest.fixture
def devserver(tmp_path: Path) -> object:
    port = _free_port()
    ours = ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")
    env = {key: value for key, value in os.environ.items() if key not in ours}
    env |= {"DEBUG": "true", "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    command = [sys.executable, "manage.py", "devserver", f"127.0.0.1:{port}", "--noreload"]
    process = subprocess.Popen(  # noqa: S603 (our own manage.py, fixed arguments)
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert process.poll() is None, "devserver stopped before it served"
                assert time.monotonic() < deadline, "devserver did not listen in 120 s"
                time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_make_runs_server_queues_a_class_of_connections(devserver: int) -> None:
    assert _listen_backlog(devserver) >= 128

    def fetch(_: int) -> int:
        with urllib.request.urlopen(f"http://127.0.0.1:{devserver}/healthz", timeout=60) as reply:  # noqa: S310
            return int(reply.status)

    with ThreadPoolExecutor(max_workers=STUDENTS) as pool:
        assert list(pool.map(fetch, range(STUDENTS))) == [200] * STUDENTS


def test_make_run_serves_with_devserver() -> None:
    script = (ROOT / "scripts/run-dev.sh").read_text()

    assert 'manage.py devserver "127.0.0.1:$PORT"' in script
    assert "manage.py runserver" not in script

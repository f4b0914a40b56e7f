"""A real `celery worker` process on the `cpu` queue for the runner's integration tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.conf import settings

from runner.models import JobRecord, JobState

ROOT = Path(__file__).resolve().parents[2]


def database_url() -> str:
    """The URL of the test database this pytest process uses, for the worker to share."""
    database = settings.DATABASES["default"]
    user, host, port = database["USER"], database["HOST"], database["PORT"] or 5432
    return f"postgres://{user}@{host}:{port}/{database['NAME']}"


@contextmanager
def cpu_worker(name: str, **env: str) -> Iterator[None]:
    """Run one worker with `env` (its broker settings) until the block ends, then stop it."""
    environment = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DEBUG": "true",
        "SECRET_KEY": os.environ.get("SECRET_KEY", "test-only"),
        **env,
    }
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "cpu", "-c", "1",
               "--without-gossip", "--without-mingle", "-l", "WARNING",
               "-n", f"{name}-{os.getpid()}@localhost"]  # fmt: skip
    # S603: the argv is ours, built above.
    process = subprocess.Popen(command, cwd=ROOT, env=environment, start_new_session=True)  # noqa: S603
    try:
        yield
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def wait_for_record(job_id: str, timeout: float = 240, **expected: Any) -> JobRecord | None:
    """The finished JobRecord of `job_id` once it matches `expected` fields, or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        record = JobRecord.objects.filter(job_id=job_id, state=JobState.FINISHED).first()
        if record is not None and all(getattr(record, k) >= v for k, v in expected.items()):
            return record
        time.sleep(0.5)
    return None

"""A real `celery worker` process on the `cpu` queue for the runner's integration tests."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from config.celery_workers import worker_processes
from runner.models import JobRecord, JobState

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def cpu_worker(name: str, **env: str) -> Iterator[None]:
    """One worker on the `cpu` queue with `env` (its broker settings) until the block ends."""
    broker_url = env.pop("CELERY_BROKER_URL")
    env = {"DEBUG": "true", **env}
    with worker_processes(broker_url, queues="cpu", name=name, ready_timeout_s=None, env=env):
        yield


def wait_for_record(job_id: str, timeout: float = 240, **expected: Any) -> JobRecord | None:
    """The finished JobRecord of `job_id` once it matches `expected` fields, or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        record = JobRecord.objects.filter(job_id=job_id, state=JobState.FINISHED).first()
        if record is not None and all(getattr(record, k) >= v for k, v in expected.items()):
            return record
        time.sleep(0.5)
    return None

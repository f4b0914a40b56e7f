"""A real Celery worker process on the real Redis grades a job and stores one result per job id."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from celery import Celery
from django.conf import settings

from runner.api import GradingJob
from runner.models import JobRecord, JobState
from tests.runner.conftest import CASES, CORRECT, REFERENCE

ROOT = Path(__file__).resolve().parents[2]
BROKER = "redis://127.0.0.1:6379/14"
pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _database_url() -> str:
    database = settings.DATABASES["default"]
    user, host, port = database["USER"], database["HOST"], database["PORT"] or 5432
    return f"postgres://{user}@{host}:{port}/{database['NAME']}"


@pytest.fixture
def worker(require: Callable[[str, str, int], None]) -> Iterator[Celery]:
    require("Redis", "127.0.0.1", 6379)
    import redis

    redis.Redis.from_url(BROKER).flushdb()
    env = {
        **os.environ,
        "CELERY_BROKER_URL": BROKER,
        "DATABASE_URL": _database_url(),
        "DEBUG": "true",
        "SECRET_KEY": os.environ.get("SECRET_KEY", "test-only"),
    }
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "-Q",
        "cpu",
        "-c",
        "1",
        "--without-gossip",
        "--without-mingle",
        "-l",
        "WARNING",
        "-n",
        f"runner-test-{os.getpid()}@localhost",
    ]
    process = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    client = Celery("runner-test", broker=BROKER)
    client.conf.update(task_serializer="json", accept_content=["json"])
    try:
        yield client
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _wait_for(job_id: str, deliveries: int, timeout: float = 240) -> JobRecord:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        record = JobRecord.objects.filter(job_id=job_id).first()
        if record and record.state == JobState.FINISHED and record.deliveries >= deliveries:
            return record
        time.sleep(0.5)
    pytest.fail(f"the worker did not finish job {job_id} ({deliveries} deliveries) in time")


def test_a_worker_grades_a_job_and_a_duplicate_delivery_stores_one_result(worker: Celery) -> None:
    job = GradingJob(
        job_id=f"worker-{uuid.uuid4()}",
        source=CORRECT,
        entry_point="f",
        reference_source=REFERENCE,
        cases=CASES,
    )
    for _ in range(2):
        worker.send_task(
            "runner.tasks.grade_submission", args=(job.to_dict(),), task_id=job.job_id, queue="cpu"
        )
    record = _wait_for(job.job_id, deliveries=2)
    assert record.status == "ok"
    assert record.score == 1.0
    assert record.result["job_id"] == job.job_id
    assert JobRecord.objects.filter(job_id=job.job_id).count() == 1

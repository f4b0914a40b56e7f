"""A real Celery worker process on the real Redis grades a job and stores one result per job id."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator

import pytest
from celery import Celery
from django.db import connection

from runner.api import GradingJob
from runner.models import JobRecord
from tests.runner.conftest import CASES, CORRECT, REFERENCE
from tests.runner.workers import cpu_worker, wait_for_record

BROKER = "redis://127.0.0.1:6379/14"
pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def worker(require: Callable[[str, str, int], None]) -> Iterator[Celery]:
    require("Redis", "127.0.0.1", 6379)
    import redis

    redis.Redis.from_url(BROKER).flushdb()
    client = Celery("runner-test", broker=BROKER, set_as_current=False)
    client.conf.update(task_serializer="json", accept_content=["json"])
    with cpu_worker("runner-test", CELERY_BROKER_URL=BROKER):
        yield client


def _wait_for(job_id: str, deliveries: int) -> JobRecord:
    record = wait_for_record(job_id, deliveries=deliveries)
    if record is None:
        pytest.fail(f"the worker did not finish job {job_id} ({deliveries} deliveries) in time")
    return record


def _send(worker: Celery, job: GradingJob | None = None) -> GradingJob:
    """Send a correct answer's job (or `job` again) to the worker's `cpu` queue."""
    job = job or GradingJob(
        job_id=f"worker-{uuid.uuid4()}",
        source=CORRECT,
        entry_point="f",
        reference_source=REFERENCE,
        cases=CASES,
    )
    worker.send_task(
        "runner.tasks.grade_submission", args=(job.to_dict(),), task_id=job.job_id, queue="cpu"
    )
    return job


def test_a_worker_grades_a_job_and_a_duplicate_delivery_stores_one_result(worker: Celery) -> None:
    job = _send(worker)
    _send(worker, job)
    record = _wait_for(job.job_id, deliveries=2)
    assert record.status == "ok"
    assert record.score == 1.0
    assert record.result["job_id"] == job.job_id
    assert JobRecord.objects.filter(job_id=job.job_id).count() == 1


def _other_backends() -> set[int]:
    """Server pids of the other sessions on this test database (the worker's)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        )
        return {row[0] for row in cursor.fetchall()}


def test_a_worker_keeps_its_database_connection_between_tasks(worker: Celery) -> None:
    # Celery's Django fix-up would close it after every task (a new connection per task).
    if connection.vendor != "postgresql":
        pytest.skip("counts PostgreSQL sessions")
    backends = []
    for number in range(3):
        _wait_for(_send(worker).job_id, deliveries=1)
        time.sleep(0.5)  # past the task's end, where the fix-up closed it
        backends.append(_other_backends())
        assert backends[-1], f"no worker session after task {number + 1}"
    assert backends[0] == backends[1] == backends[2]

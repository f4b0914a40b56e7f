"""A real Celery worker process on the real Redis grades a job and stores one result per job id."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from celery import Celery

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

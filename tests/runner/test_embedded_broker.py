"""`make run` has no Redis: a worker on kombu's filesystem broker grades jobs too."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from celery import Celery
from django.conf import settings

from runner.api import GradingJob
from tests.runner.conftest import CASES, CORRECT, REFERENCE
from tests.runner.workers import cpu_worker, wait_for_record

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _folders(var_dir: Path) -> dict[str, str]:
    folders = {
        "data_folder_in": var_dir / "broker",
        "data_folder_out": var_dir / "broker",
        "control_folder": var_dir / "broker-control",
    }
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    return {name: str(folder) for name, folder in folders.items()}


@pytest.fixture
def filesystem_worker(tmp_path: Path) -> Iterator[Celery]:
    if "postgresql" not in settings.DATABASES["default"]["ENGINE"]:
        pytest.skip("the worker process needs the shared PostgreSQL test database")
    options = _folders(tmp_path)
    client = Celery("embedded-broker-test", broker="filesystem://", set_as_current=False)
    client.conf.update(
        broker_transport_options=options, task_serializer="json", accept_content=["json"]
    )
    with cpu_worker("embedded", CELERY_BROKER_URL="filesystem://", VIVABANK_VAR_DIR=str(tmp_path)):
        yield client


def test_a_worker_on_the_filesystem_broker_grades_a_job(filesystem_worker: Celery) -> None:
    job = GradingJob(
        job_id=f"embedded-{uuid.uuid4()}",
        source=CORRECT,
        entry_point="f",
        reference_source=REFERENCE,
        cases=CASES,
    )
    filesystem_worker.send_task(
        "runner.tasks.grade_submission", args=(job.to_dict(),), task_id=job.job_id, queue="cpu"
    )

    record = wait_for_record(job.job_id)
    assert record is not None, "the worker did not grade the job in time"
    assert record.status == "ok"
    assert record.score == 1.0

"""`make run` has no Redis: a worker on kombu's filesystem broker grades jobs too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from celery import Celery
from django.conf import settings

from runner.api import GradingJob
from runner.models import JobRecord, JobState
from tests.runner.conftest import CASES, CORRECT, REFERENCE

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _database_url() -> str:
    database = settings.DATABASES["default"]
    user, host, port = database["USER"], database["HOST"], database["PORT"] or 5432
    return f"postgres://{user}@{host}:{port}/{database['NAME']}"


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
    env = {
        **os.environ,
        "CELERY_BROKER_URL": "filesystem://",
        "VIVABANK_VAR_DIR": str(tmp_path),
        "DATABASE_URL": _database_url(),
        "DEBUG": "true",
        "SECRET_KEY": os.environ.get("SECRET_KEY", "test-only"),
    }
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "cpu", "-c", "1",
               "--without-gossip", "--without-mingle", "-l", "WARNING",
               "-n", f"embedded-{os.getpid()}@localhost"]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)  # noqa: S603
    client = Celery("embedded-broker-test", broker="filesystem://")
    client.conf.update(
        broker_transport_options=options, task_serializer="json", accept_content=["json"]
    )
    try:
        yield client
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


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

    deadline = time.monotonic() + 240
    record = None
    while time.monotonic() < deadline:
        record = JobRecord.objects.filter(job_id=job.job_id, state=JobState.FINISHED).first()
        if record is not None:
            break
        time.sleep(0.5)
    assert record is not None, "the worker did not grade the job in time"
    assert record.status == "ok"
    assert record.score == 1.0

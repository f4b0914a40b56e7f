"""`make run` has no Redis: a worker on kombu's filesystem broker grades jobs too."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from celery import Celery
from django.conf import settings

from runner.api import GradingJob
from runner.models import JobRecord, JobState
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


def _send(client: Celery) -> str:
    job = GradingJob(
        job_id=f"embedded-{uuid.uuid4()}",
        source=CORRECT,
        entry_point="f",
        reference_source=REFERENCE,
        cases=CASES,
    )
    client.send_task(
        "runner.tasks.grade_submission", args=(job.to_dict(),), task_id=job.job_id, queue="cpu"
    )
    return job.job_id


def test_a_worker_on_the_filesystem_broker_grades_a_job(filesystem_worker: Celery) -> None:
    job_id = _send(filesystem_worker)

    record = wait_for_record(job_id)
    assert record is not None, "the worker did not grade the job in time"
    assert record.status == "ok"
    assert record.score == 1.0


def test_make_runs_worker_polls_the_filesystem_broker_often(tmp_path: Path) -> None:
    """kombu waits its polling interval (1 s unless told) after each fetch that finds nothing
    or finds the worker's slots full, so with prefetch 1 a worker took one job per slot a
    second: 40 students' submits waited 20 s. `make run`'s settings shorten it."""
    ours = ("CELERY_BROKER_URL", "DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")
    env = {key: value for key, value in os.environ.items() if key not in ours}
    script = (
        "from config.celery import app\n"
        "with app.connection_for_read() as connection:\n"
        "    print(connection.transport_cls, connection.transport.polling_interval)\n"
    )
    result = subprocess.run(  # noqa: S603 (our own manage.py, fixed arguments)
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=settings.BASE_DIR,
        env={**env, "DEBUG": "true", "VIVABANK_VAR_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    transport, interval = result.stdout.splitlines()[-1].split()
    assert transport == "filesystem"
    assert float(interval) <= 0.1


def test_a_filesystem_broker_worker_takes_queued_jobs_without_a_pause_between(
    filesystem_worker: Celery,
) -> None:
    """Ten jobs queued at once on a 1-slot worker: with kombu's 1 s polling the last finished
    at least 9 s after the first; each takes milliseconds on a warm worker."""
    wait_for_record(_send(filesystem_worker))  # the worker is up and its zygote warm
    job_ids = [_send(filesystem_worker) for _ in range(10)]

    records = [wait_for_record(job_id) for job_id in job_ids]

    assert all(record is not None and record.status == "ok" for record in records)
    finished = JobRecord.objects.filter(job_id__in=job_ids, state=JobState.FINISHED)
    times = sorted(record.finished_at for record in finished if record.finished_at)
    assert len(times) == 10
    assert (times[-1] - times[0]).total_seconds() < 5, times


def _finished_run(database: Path, job_id: str, timeout_s: float) -> tuple[str, str] | None:
    """(state, status) of `job_id`'s record in the SQLite file once finished, else None."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with closing(sqlite3.connect(database, timeout=30)) as connection:
            row = connection.execute(
                "SELECT state, status FROM runner_jobrecord WHERE job_id = ?", (job_id,)
            ).fetchone()
        if row is not None and row[0] == JobState.FINISHED:
            return row[0], row[1]
        time.sleep(0.2)
    return None


def _send_job(client: Celery, task: str, code: str) -> str:
    """A Run of `code`, or a grading of a correct answer, sent as the web tier sends them."""
    if task != "runner.tasks.run_snippet":
        return _send(client)
    job_id = f"run-{uuid.uuid4()}"
    client.send_task(task, args=(job_id, code), task_id=job_id, queue="cpu")
    return job_id


@pytest.mark.parametrize("task", ["runner.tasks.run_snippet", "runner.tasks.grade_submission"])
def test_a_job_that_meets_a_locked_sqlite_file_runs_once_the_lock_is_gone(
    tmp_path: Path, task: str
) -> None:
    """`make run`'s SQLite file held by a long write (an import) past the worker's busy
    timeout: the job is tried again within seconds and finishes, instead of the task failing
    and the student's page polling a Run that never finishes (or a grade waiting minutes for
    the sweeper)."""
    database = tmp_path / "db.sqlite3"
    env = {
        "DEBUG": "true",
        "DATABASE_URL": f"sqlite:///{database}",
        "VIVABANK_VAR_DIR": str(tmp_path),
    }
    migrated = subprocess.run(  # noqa: S603 (our own manage.py, fixed arguments)
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=settings.BASE_DIR,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert migrated.returncode == 0, migrated.stderr
    client = Celery("locked-sqlite-test", broker="filesystem://", set_as_current=False)
    client.conf.update(
        broker_transport_options=_folders(tmp_path), task_serializer="json", accept_content=["json"]
    )

    with cpu_worker(
        "locked-sqlite", CELERY_BROKER_URL="filesystem://", SQLITE_TIMEOUT_S="0.5", **env
    ):
        assert _finished_run(database, _send_job(client, task, "print(1)"), 240) == (
            "finished",
            "ok",
        )
        with closing(sqlite3.connect(database, isolation_level=None)) as writer:
            writer.execute("BEGIN IMMEDIATE")  # the long write: every other writer waits
            job_id = _send_job(client, task, "print(2)")
            time.sleep(2.5)  # the worker's claim has met the lock (0.5 s) and failed
            writer.execute("ROLLBACK")

        assert _finished_run(database, job_id, 20) == ("finished", "ok")

"""A worker killed (SIGKILL) or hung (SIGSTOP) mid-job does not lose it: the broker hands it
to the next worker, which grades it once.

The task is acknowledged only after it finishes (acks_late), so a worker that
dies holding it leaves it unacknowledged; Redis gives it out again once the
visibility timeout passes. The job id keys one stored result either way.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from collections.abc import Callable

import pytest
from celery import Celery

from config.celery_workers import worker_names
from runner.api import GradingJob, Limits
from runner.models import JobRecord, JobState
from tests.runner.conftest import CASES, REFERENCE
from tests.runner.workers import cpu_worker, wait_for_record

BROKER = "redis://127.0.0.1:6379/10"  # databases 8-11 belong to the fault tests
pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SLOW_BUT_RIGHT = (
    "import time\nimport torch\n\ndef f(x):\n    time.sleep(4)\n    return torch.tanh(x) * 2\n"
)


def _worker_pids(name: str) -> list[int]:
    found = subprocess.run(  # noqa: S603 (fixed argv)
        ["/usr/bin/pgrep", "-f", "--", f"-n {worker_names(name)[0]}"],
        capture_output=True,
        text=True,
        check=False,
    )
    return [int(pid) for pid in found.stdout.split()]


def _wait_until_running(job_id: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if JobRecord.objects.filter(job_id=job_id, state=JobState.RUNNING).exists():
            return
        time.sleep(0.2)
    pytest.fail("the first worker never started the job")


def _job() -> GradingJob:
    return GradingJob(
        job_id=f"crash-{uuid.uuid4()}",
        source=SLOW_BUT_RIGHT,
        entry_point="f",
        reference_source=REFERENCE,
        cases=CASES,
        limits=Limits(time_s=20),
    )


def _send(job: GradingJob) -> None:
    client = Celery("crash-test", broker=BROKER, set_as_current=False)
    client.conf.update(task_serializer="json", accept_content=["json"])
    client.send_task(
        "runner.tasks.grade_submission", args=(job.to_dict(),), task_id=job.job_id, queue="cpu"
    )


def _signal_worker(name: str, signum: int) -> set[int]:
    groups = {os.getpgid(pid) for pid in _worker_pids(name)}
    assert groups, "could not find the worker to signal"
    for group in groups:
        os.killpg(group, signum)
    return groups


def _graded_once_by_a_successor(job: GradingJob) -> None:
    with cpu_worker("successor", **BROKER_ENV):
        record = wait_for_record(job.job_id, timeout=180, deliveries=2)

    assert record is not None, "the job was lost with its worker"
    assert record.status == "ok"
    assert record.score == 1.0
    assert JobRecord.objects.filter(job_id=job.job_id).count() == 1


BROKER_ENV = {"CELERY_BROKER_URL": BROKER, "CELERY_VISIBILITY_TIMEOUT": "3"}


def test_a_job_held_by_a_killed_worker_is_run_again_by_the_next(
    require: Callable[[str, str, int], None],
) -> None:
    require("Redis", "127.0.0.1", 6379)
    import redis

    redis.Redis.from_url(BROKER).flushdb()
    job = _job()

    with cpu_worker("doomed", **BROKER_ENV):
        _send(job)
        _wait_until_running(job.job_id)
        _signal_worker("doomed", signal.SIGKILL)  # no warm shutdown, no acknowledgement
    assert not JobRecord.objects.filter(job_id=job.job_id, state=JobState.FINISHED).exists()
    # A consumer looks for overdue unacknowledged jobs when it starts, then only every
    # few minutes: start the successor once the 3 s visibility timeout has passed.
    time.sleep(4)

    _graded_once_by_a_successor(job)


def test_a_job_held_by_a_hung_worker_is_graded_once_by_the_next(
    require: Callable[[str, str, int], None],
) -> None:
    require("Redis", "127.0.0.1", 6379)
    import redis

    redis.Redis.from_url(BROKER).flushdb()
    job = _job()

    with cpu_worker("doomed", **BROKER_ENV):
        _send(job)
        _wait_until_running(job.job_id)
        groups = _signal_worker("doomed", signal.SIGSTOP)  # hung: holds the job, says nothing
        try:
            time.sleep(4)  # past the visibility timeout
            _graded_once_by_a_successor(job)
        finally:
            for group in groups:
                os.killpg(group, signal.SIGKILL)  # a stopped worker ignores SIGTERM
    finished = JobRecord.objects.get(job_id=job.job_id)
    assert finished.state == JobState.FINISHED

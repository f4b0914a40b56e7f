"""Redis restarts while 200 code answers are queued or running: all 200 are graded, none
twice, every score right.

A private Redis (append-only file, fsync always) on its own port is the broker of two real
workers, so the machine's Redis stays up. Jobs queued before the restart come back from the
append-only file; jobs a worker held come back after the visibility timeout (and are not
run again: the job id keys one stored result); submits made while Redis is down still
succeed and beat's sweeper sends their jobs once their time limit and margin have passed.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from config.celery_workers import worker_processes
from grading.models import Response, ResponseStatus
from grading.services.code import code_job, code_responses_sweep
from quizbank.models import Role
from runner import api as runner_api
from runner.models import JobRecord
from tests.faults.servers import free_port
from tests.grading.content import CODE
from tests.grading.factories import (
    add_slots,
    member,
    new_course,
    new_quiz,
    question,
    submitted_attempt,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
ANSWERS = 200
RIGHT = "def double(x):\n    return x * 2\n"
WRONG = "def double(x):\n    return x + 2\n"


class PrivateRedis:
    def __init__(self, folder: Path) -> None:
        self.folder, self.port = folder, free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        argv = ["/usr/bin/redis-server", "--port", str(self.port), "--dir", str(self.folder)]
        argv += ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL)  # noqa: S603 (fixed argv)
        deadline = time.monotonic() + 20
        while (
            subprocess.run(
                ["/usr/bin/redis-cli", "-p", str(self.port), "ping"],
                capture_output=True,
                check=False,
            ).stdout.strip()
            != b"PONG"
        ):  # noqa: S603
            assert time.monotonic() < deadline, "private Redis did not start"
            time.sleep(0.1)

    def stop(self) -> None:
        assert self.process is not None
        self.process.terminate()  # SIGTERM: Redis flushes its append-only file and exits
        self.process.wait(timeout=30)


@pytest.fixture
def redis_server() -> Iterator[PrivateRedis]:
    folder = Path(tempfile.mkdtemp(prefix="vivabank-redis-"))
    server = PrivateRedis(folder)
    server.start()
    try:
        yield server
    finally:
        if server.process and server.process.poll() is None:
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _wait(predicate: object, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.5)
    return False


def _waiting() -> int:
    return Response.objects.filter(
        status__in=(ResponseStatus.QUEUED, ResponseStatus.RUNNING)
    ).count()


def _sweep_as_beat_would() -> None:
    """Run the sweeper at the moment beat would first find the lost jobs: their time limit
    and the margin after submit (the clock is moved, not waited for)."""
    one = Response.objects.exclude(job_id="").select_related("question_version").first()
    assert one is not None
    patience = runner_api.grading_time_limit_s(code_job(one, one.job_id)) + 61
    code_responses_sweep(now=timezone.now() + timedelta(seconds=patience), limit=ANSWERS)


def test_all_200_code_answers_are_graded_once_through_a_redis_restart(
    redis_server: PrivateRedis,
) -> None:
    course = new_course()
    quiz = new_quiz(course=course, attempts_allowed=1)
    add_slots(quiz, question(course, CODE))
    students = [member(course, Role.STUDENT) for _ in range(ANSWERS)]
    env = {"CELERY_VISIBILITY_TIMEOUT": "5"}

    with worker_processes(
        redis_server.url, count=2, queues="cpu,default", name="redisfault", env=env
    ):
        for index, student in enumerate(students):
            if index == ANSWERS // 2:
                redis_server.stop()  # half queued or running, the rest submitted while it is down
            if index == ANSWERS // 2 + 20:
                redis_server.start()
            source = RIGHT if index % 2 == 0 else WRONG
            submitted_attempt(quiz, student, {0: {"source": source}})
        _wait(lambda: _waiting() == 0, timeout_s=120)
        _sweep_as_beat_would()
        assert _wait(lambda: _waiting() == 0, timeout_s=180), f"{_waiting()} never graded"
        graded_at = dict(Response.objects.values_list("pk", "graded_at"))
        _sweep_as_beat_would()  # a second sweep, or a late redelivery, changes nothing
        time.sleep(3)

    responses = list(Response.objects.filter(attempt__quiz=quiz).select_related("attempt__user"))
    assert len(responses) == ANSWERS
    assert all(r.status == ResponseStatus.GRADED for r in responses)
    assert dict(Response.objects.values_list("pk", "graded_at")) == graded_at
    right = {r.pk for r in responses if r.answer == {"source": RIGHT}}
    assert all(r.score == (1.0 if r.pk in right else 0.0) for r in responses)
    jobs = [r.job_id for r in responses]
    assert len(set(jobs)) == ANSWERS
    assert JobRecord.objects.filter(job_id__in=jobs).count() == ANSWERS

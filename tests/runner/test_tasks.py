"""The grading task stores one result per job id, however often it is delivered."""

import logging
import os
import signal
import uuid
from typing import Any

import pytest

from runner.api import GradingJob, Limits
from runner.child_outcome import ChildOutcome
from runner.models import JobRecord, JobState
from runner.records import MAX_DELIVERIES
from runner.supervisor import Supervisor
from runner.tasks import grade_submission, grading_time_limits, run_snippet, time_limits
from tests.runner.conftest import CASES, CORRECT, REFERENCE


def _job(source: str = CORRECT) -> GradingJob:
    return GradingJob(
        job_id=f"task-{uuid.uuid4()}",
        source=source,
        entry_point="f",
        reference_source=REFERENCE,
        cases=CASES,
    )


@pytest.mark.django_db
def test_the_task_takes_and_returns_json_and_stores_the_result(supervisor: Supervisor) -> None:
    job = _job()
    result = grade_submission(job.to_dict())
    assert result["status"] == "ok"
    assert result["score"] == 1.0
    record = JobRecord.objects.get(job_id=job.job_id)
    assert record.state == JobState.FINISHED
    assert record.score == 1.0
    assert record.result == result


@pytest.mark.django_db
def test_a_finished_task_logs_no_part_of_its_verdict(
    supervisor: Supervisor, caplog: pytest.LogCaptureFixture
) -> None:
    source = "import torch\ndef f(x):\n    print('OUTPUT-MARKER')\n    return torch.tanh(x) * 2\n"
    with caplog.at_level(logging.INFO, logger="celery.app.trace"):
        outcome = grade_submission.apply(args=(_job(source).to_dict(),)).get()
    assert "OUTPUT-MARKER" in outcome["stdout"]
    assert "succeeded" in caplog.text
    assert "OUTPUT-MARKER" not in caplog.text


@pytest.mark.django_db
def test_a_redelivered_job_is_not_run_again(supervisor: Supervisor) -> None:
    job = _job()
    first = grade_submission(job.to_dict())
    changed = GradingJob.from_dict(job.to_dict() | {"source": "def f(x):\n    return x\n"})
    second = grade_submission(changed.to_dict())
    assert second == first
    record = JobRecord.objects.get(job_id=job.job_id)
    assert record.deliveries == 2
    assert JobRecord.objects.filter(job_id=job.job_id).count() == 1


@pytest.mark.django_db
def test_a_snippet_run_is_stored_once_per_run_id(supervisor: Supervisor) -> None:
    first = run_snippet("run-1", "print('hello')")
    again = run_snippet("run-1", "print('other')")
    assert first["stdout"] == "hello\n"
    assert again == first


def test_task_time_limits_sit_above_the_sandbox_wall_clock() -> None:
    soft, hard = time_limits(Limits(time_s=5))
    assert 2 * 5 < soft < hard


@pytest.mark.django_db
def test_a_job_delivered_past_the_limit_ends_as_an_error_and_is_never_run(
    supervisor: Supervisor,
) -> None:
    # Each earlier delivery stopped its worker before the job finished (a poison pill).
    job = _job()
    JobRecord.objects.create(job_id=job.job_id, kind="grade", deliveries=MAX_DELIVERIES)
    result = grade_submission(job.to_dict())
    assert (result["status"], result["score"]) == ("internal", 0.0)
    assert f"stopped its worker {MAX_DELIVERIES} times" in result["message"]
    record = JobRecord.objects.get(job_id=job.job_id)
    assert (record.state, record.status) == (JobState.FINISHED, "internal")
    assert grade_submission(job.to_dict()) == result


@pytest.mark.django_db
def test_a_job_within_the_delivery_limit_still_runs(supervisor: Supervisor) -> None:
    job = _job()
    JobRecord.objects.create(job_id=job.job_id, kind="grade", deliveries=MAX_DELIVERIES - 1)
    assert grade_submission(job.to_dict())["score"] == 1.0


def test_grading_time_limits_count_every_run_of_a_job() -> None:
    plain = _job()
    timed = GradingJob.from_dict(
        plain.to_dict() | {"cases": [{**CASES[0], "checks": ["gradients", "efficiency"]}]}
    )
    assert grading_time_limits(plain) == time_limits(plain.limits, runs=3)
    # Each efficiency case: up to 3 timing children each for the answer, the reference and
    # the baseline.
    assert grading_time_limits(timed) == time_limits(plain.limits, runs=3 + 3 * 3)


@pytest.mark.django_db
def test_used_standby_children_are_forked_after_the_task_not_during_it(
    supervisor: Supervisor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forking competes for a core with the job's record and result: a run leaves one child
    for the job's next run, and the rest are forked once the task has ended."""
    zygote = supervisor.zygote
    assert zygote is not None
    supervisor.top_up()
    full = supervisor.config.standby
    assert zygote.on_hand("cpu") == full

    assert supervisor.run({"kind": "exec", "source": "pass"}, Limits(), device="cpu").status == "ok"
    assert zygote.on_hand("cpu") == max(1, full - 1)
    supervisor.top_up()
    assert zygote.on_hand("cpu") == full

    during: list[int] = []
    real_run = supervisor.run

    def run_and_count(message: dict[str, Any], limits: Limits, *, device: str) -> ChildOutcome:
        outcome = real_run(message, limits, device=device)
        during.append(zygote.on_hand("cpu"))
        return outcome

    monkeypatch.setattr(supervisor, "run", run_and_count)
    result = run_snippet.apply(args=(f"run-{uuid.uuid4()}", "print(1)")).get()
    monkeypatch.undo()
    assert result["status"] == "ok"
    assert during == [max(1, full - 1)]  # nothing forked while the task ran
    assert zygote.on_hand("cpu") == full  # topped up when it ended


def test_topping_up_after_the_zygote_died_raises_nothing(supervisor: Supervisor) -> None:
    """The top-up runs after every task, in a signal handler: a zygote killed meanwhile must
    not turn it into an error; the next job's supervisor starts a new zygote."""
    from runner.registry import default_config

    own = Supervisor(default_config())
    try:
        assert own.zygote is not None
        own.zygote.take("cpu").close()  # a job used a child: the top-up has one to fork
        os.killpg(own.zygote.pid, signal.SIGKILL)
        own.zygote._process.wait(timeout=10)
        own.top_up()
        assert not own.zygote.alive()
    finally:
        own.close()


def test_a_queued_grading_shows_monitors_neither_the_answer_nor_the_reference(
    redis_url: str,
) -> None:
    # Celery's events and logs carry a repr of the arguments; the job holds both sources.
    from celery.signals import before_task_publish

    from config.celery import app
    from config.celery_workers import use_broker
    from runner.api import submit_grading

    use_broker(redis_url)
    shown: list[str] = []

    def capture(headers: dict[str, Any] | None = None, **_: Any) -> None:
        headers = headers or {}
        shown.append(f"{headers.get('argsrepr')} {headers.get('kwargsrepr')}")

    before_task_publish.connect(capture, weak=False)
    try:
        submit_grading(_job(source="import torch\n# ANSWER-MARKER\ndef f(x):\n    return x\n"))
    finally:
        before_task_publish.disconnect(capture)
        app.control.purge()
    assert len(shown) == 1
    assert "ANSWER-MARKER" not in shown[0]
    assert "REFERENCE-MARKER" not in shown[0]

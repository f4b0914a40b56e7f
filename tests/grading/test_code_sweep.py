"""Nothing lost: a locked database is retried, and beat's sweeper applies or re-sends code
answers left waiting past their job's time limit and the margin."""

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import OperationalError
from django.utils import timezone

import grading.tasks
from grading.models import Attempt, AttemptStatus, Response, ResponseStatus
from grading.services.attempts import attempt_start
from grading.services.code import code_job, code_responses_sweep, code_result_apply
from grading.services.responses import attempt_submit
from grading.tasks import apply_code_result
from quizbank.models import Role
from runner import api as runner_api
from runner.models import JobRecord
from runner.records import MAX_DELIVERIES, job_record_finish
from tests.grading.content import CODE
from tests.grading.factories import add_slots, member, new_course, new_quiz, question

SOURCE = "def double(x):\n    return x * 2\n"
Sent = list[tuple[runner_api.GradingJob, float | None]]


@pytest.fixture
def waiting(db: None, django_capture_on_commit_callbacks: Any) -> Response:
    """A submitted code answer whose job was handed to no worker (the send is captured)."""
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, question(course, CODE, points="2"))
    attempt = attempt_start(quiz=quiz, user=member(course, Role.STUDENT), now=timezone.now())
    Response.objects.filter(attempt=attempt).update(answer={"source": SOURCE})
    with django_capture_on_commit_callbacks(execute=False):
        attempt_submit(attempt=attempt, now=timezone.now())
    return Response.objects.select_related("attempt").get(attempt=attempt)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Sent:
    """The jobs the web tier hands to the runner, with their expiry, instead of the broker."""
    calls: Sent = []

    def submit(job: runner_api.GradingJob, **options: Any) -> str:
        calls.append((job, options.get("expires_s")))
        return job.job_id

    monkeypatch.setattr(runner_api, "submit_grading", submit)
    return calls


def _patience(response: Response) -> timedelta:
    limit_s = runner_api.grading_time_limit_s(code_job(response, response.job_id))
    return timedelta(seconds=limit_s + settings.GRADING_STUCK_MARGIN_S)


def _stuck_at(response: Response) -> datetime:
    submitted_at = response.attempt.submitted_at
    assert submitted_at is not None
    return submitted_at + _patience(response) + timedelta(seconds=1)


def _sweep(now: datetime, capture: Any) -> dict[str, int]:
    with capture(execute=True):
        return code_responses_sweep(now=now)


def _result(job_id: str, score: float) -> dict[str, Any]:
    return {"job_id": job_id, "status": "ok", "score": score, "cases": []}


def test_a_job_within_its_time_limit_and_margin_is_left_alone(
    waiting: Response, sent: Sent, django_capture_on_commit_callbacks: Any
) -> None:
    almost = _stuck_at(waiting) - timedelta(seconds=2)

    assert _sweep(almost, django_capture_on_commit_callbacks) == {"waiting": 1}
    assert sent == []


def test_a_lost_job_is_sent_again_under_its_own_job_id_and_expires_before_the_next_sweep(
    waiting: Response, sent: Sent, django_capture_on_commit_callbacks: Any
) -> None:
    counts = _sweep(_stuck_at(waiting), django_capture_on_commit_callbacks)

    assert counts == {"resent": 1}
    [(job, expires_s)] = sent
    assert job.job_id == waiting.job_id
    assert job.source == SOURCE
    assert expires_s == settings.GRADING_SWEEP_STUCK_EVERY_S
    waiting.refresh_from_db()
    assert waiting.status == ResponseStatus.QUEUED


def test_a_running_answer_whose_worker_died_long_ago_is_sent_again(
    waiting: Response, sent: Sent, django_capture_on_commit_callbacks: Any
) -> None:
    now = _stuck_at(waiting)
    Response.objects.filter(pk=waiting.pk).update(status=ResponseStatus.RUNNING)
    JobRecord.objects.create(
        job_id=waiting.job_id, kind="grade", deliveries=1, claimed_at=now - _patience(waiting)
    )

    assert _sweep(now, django_capture_on_commit_callbacks) == {"resent": 1}
    assert [job.job_id for job, _ in sent] == [waiting.job_id]


def test_a_job_a_worker_picked_up_lately_is_not_sent_again(
    waiting: Response, sent: Sent, django_capture_on_commit_callbacks: Any
) -> None:
    now = _stuck_at(waiting)
    JobRecord.objects.create(
        job_id=waiting.job_id, kind="grade", deliveries=2, claimed_at=now - timedelta(seconds=5)
    )

    assert _sweep(now, django_capture_on_commit_callbacks) == {"waiting": 1}
    assert sent == []


def test_a_finished_job_is_applied_from_its_record_without_running_again(
    waiting: Response, sent: Sent, django_capture_on_commit_callbacks: Any
) -> None:
    job_record_finish(job_id=waiting.job_id, kind="grade", result=_result(waiting.job_id, 0.5))
    now = _stuck_at(waiting)

    assert _sweep(now, django_capture_on_commit_callbacks) == {"applied": 1}
    assert _sweep(now, django_capture_on_commit_callbacks) == {}  # nothing is waiting now
    assert sent == []
    waiting.refresh_from_db()
    attempt = Attempt.objects.get(pk=waiting.attempt_id)
    assert (waiting.status, waiting.score, waiting.graded_at) == (ResponseStatus.GRADED, 0.5, now)
    assert str(attempt.score) == "1.000"


def test_a_poisoned_job_ends_as_the_error_the_runner_stored(
    waiting: Response, sent: Sent, django_capture_on_commit_callbacks: Any
) -> None:
    stopped = {
        "job_id": waiting.job_id,
        "status": "internal",
        "score": 0.0,
        "message": "this job stopped its worker 3 times",
    }
    job_record_finish(job_id=waiting.job_id, kind="grade", result=stopped)

    assert _sweep(_stuck_at(waiting), django_capture_on_commit_callbacks) == {"applied": 1}
    waiting.refresh_from_db()
    assert (waiting.status, waiting.score) == (ResponseStatus.ERROR, None)


def test_beat_runs_the_sweeper_on_the_default_queue() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["sweep-stuck-code-answers"]

    assert entry["task"] == grading.tasks.sweep_stuck_code_answers.name
    assert entry["schedule"] == settings.GRADING_SWEEP_STUCK_EVERY_S
    assert entry["options"]["queue"] == "default"


def _failing(times: int, real: Callable[..., bool]) -> tuple[list[int], Callable[..., bool]]:
    calls: list[int] = []

    def apply(**kwargs: Any) -> bool:
        calls.append(len(calls))
        if len(calls) <= times:
            raise OperationalError("database is locked")
        return real(**kwargs)

    return calls, apply


@pytest.fixture
def eager_retries() -> Iterator[None]:
    """Eagerly, a retry then runs at once (no countdown) instead of surfacing as Retry."""
    conf = apply_code_result.app.conf
    previous = conf.task_eager_propagates
    conf.task_eager_propagates = False
    try:
        yield
    finally:
        conf.task_eager_propagates = previous


@pytest.mark.usefixtures("eager_retries")
def test_a_locked_database_is_retried_until_the_result_is_applied_once(
    waiting: Response, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls, apply = _failing(3, code_result_apply)
    monkeypatch.setattr(grading.tasks, "code_result_apply", apply)

    outcome = apply_code_result.apply(args=(_result(waiting.job_id, 1.0),))

    assert outcome.get() is True
    assert len(calls) == 4
    waiting.refresh_from_db()
    assert (waiting.status, waiting.score) == (ResponseStatus.GRADED, 1.0)


def test_result_application_backs_off_exponentially_and_gives_up_to_the_sweeper() -> None:
    # Celery sets these from the decorator; its stubs do not declare them on Task.
    options = {
        name: getattr(apply_code_result, name)
        for name in (
            "autoretry_for",
            "retry_backoff",
            "retry_backoff_max",
            "retry_jitter",
            "max_retries",
        )
    }
    assert options == {
        "autoretry_for": (OperationalError,),
        "retry_backoff": 1,
        "retry_backoff_max": 60,
        "retry_jitter": True,
        "max_retries": 10,
    }


# When the grader, not the answer, fails (a job that stopped its worker three times, an
# exception inside the grader itself), the runner ends the job `internal` and the answer
# waits as an error for an examiner's regrade: never a final score of 0 with the attempt graded.


def _assert_not_a_final_zero(response: Response) -> None:
    response.refresh_from_db()
    attempt = Attempt.objects.get(pk=response.attempt_id)
    # What "the grader failed" means on the grading side (code.py _verdict, "internal").
    assert (response.status, response.score) == (ResponseStatus.ERROR, None), (
        response.status,
        response.score,
        response.feedback,
    )
    assert attempt.status == AttemptStatus.SUBMITTED
    assert attempt.graded_at is None


def test_a_poisoned_job_is_not_a_final_zero(waiting: Response) -> None:
    from runner.tasks import _grade_once

    job = code_job(waiting, waiting.job_id)
    # Each earlier delivery stopped its worker (an OOM-killed or restarted worker counts too).
    JobRecord.objects.create(job_id=job.job_id, kind="grade", deliveries=MAX_DELIVERIES)
    result = _grade_once(job)
    assert result["status"] == "internal"

    assert code_result_apply(payload=result, now=timezone.now())
    _assert_not_a_final_zero(waiting)


def test_a_crash_inside_the_grader_is_not_a_final_zero(
    waiting: Response, monkeypatch: pytest.MonkeyPatch
) -> None:
    from runner import worker

    def broken(job: Any) -> Any:
        raise RuntimeError("a bug in the grader")

    monkeypatch.setattr(worker, "_grade", broken)
    result = worker.grade(code_job(waiting, waiting.job_id)).to_dict()
    assert result["status"] == "internal"
    assert "the grader could not judge this answer" in result["message"]

    assert code_result_apply(payload=result, now=timezone.now())
    _assert_not_a_final_zero(waiting)

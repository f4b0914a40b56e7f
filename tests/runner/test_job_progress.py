"""What the web tier's sweeper may learn of a job through runner.api: its time limit, when a
worker last picked it up and its stored result."""

from typing import Any

import pytest

from runner.api import GradingJob, JobProgress, grading_time_limit_s, job_progress
from runner.records import job_record_claim, job_record_finish
from runner.tasks import grading_time_limits
from tests.runner.conftest import CASES, CORRECT, REFERENCE


def _never(stopped: int) -> dict[str, Any]:
    raise AssertionError(f"not poisoned after {stopped} deliveries")


@pytest.mark.django_db
def test_a_job_no_worker_picked_up_has_no_progress() -> None:
    assert job_progress("response-1-never-sent") == JobProgress(None, None, None)


@pytest.mark.django_db
def test_each_delivery_moves_the_claim_time_and_the_result_shows_once_finished() -> None:
    job_record_claim(job_id="progress-1", kind="grade", poisoned=_never)
    first = job_progress("progress-1")
    job_record_claim(job_id="progress-1", kind="grade", poisoned=_never)
    second = job_progress("progress-1")
    result = {"job_id": "progress-1", "status": "ok", "score": 1.0}
    job_record_finish(job_id="progress-1", kind="grade", result=result, score=1.0)

    assert first.claimed_at is not None
    assert second.claimed_at is not None
    assert second.claimed_at > first.claimed_at
    assert (first.result, second.result, second.finished_at) == (None, None, None)
    finished = job_progress("progress-1")
    assert finished.result == result
    assert finished.finished_at is not None
    assert finished.finished_at >= second.claimed_at


def test_a_jobs_time_limit_is_its_hard_task_limit() -> None:
    job = GradingJob("limit-1", CORRECT, "f", REFERENCE, CASES)

    assert grading_time_limit_s(job) == grading_time_limits(job)[1]

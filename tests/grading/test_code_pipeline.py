"""Code answers: persisted, queued after commit, results applied once per job id."""

import time
from typing import Any

import pytest
from celery import Signature
from celery.signals import task_postrun, task_prerun
from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

import grading.signals
import grading.tasks
from grading.models import Attempt, AttemptStatus, Response, ResponseStatus
from grading.services.attempts import attempt_start
from grading.services.code import (
    GRADER_FAILED,
    code_job,
    code_result_apply,
    code_result_callback,
    code_result_mark_running,
)
from grading.services.responses import attempt_submit, response_autosave
from quizbank.models import Role
from runner.tasks import result_deliver
from tests.grading.content import CODE, SINGLE
from tests.grading.factories import add_slots, member, new_course, new_quiz
from tests.grading.factories import question as make_question

SOURCE = "def double(x):\n    return x * 2\n"


@pytest.fixture
def submitted(db: None, django_capture_on_commit_callbacks: Any) -> tuple[Attempt, Response, Any]:
    course = new_course()
    quiz = new_quiz(course=course, shuffle_choices=False)
    hidden_case = {"name": "secret", "hidden": True, "args": [{"tensor": [3.0]}]}
    code = make_question(course, {**CODE, "cases": [*CODE["cases"], hidden_case]}, points="3")
    add_slots(quiz, make_question(course, SINGLE), code)
    student = member(course, Role.STUDENT)
    attempt = attempt_start(quiz=quiz, user=student, now=timezone.now())
    response_autosave(
        attempt=attempt, position=0, answer={"choice": 0}, version=0, now=timezone.now()
    )
    response_autosave(
        attempt=attempt, position=1, answer={"source": SOURCE}, version=0, now=timezone.now()
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        attempt = attempt_submit(attempt=attempt, now=timezone.now())
    return attempt, Response.objects.get(attempt=attempt, position=1), callbacks


def _result(job_id: str, score: float = 0.5, status: str = "ok") -> dict[str, Any]:
    return {
        "job_id": job_id,
        "status": status,
        "score": score,
        "message": "case small failed",
        "cases": [
            {"name": "small", "passed": True, "weight": 1.0, "message": ""},
            {
                "name": "secret",
                "passed": False,
                "weight": 1.0,
                "hidden": True,
                "message": "expected tensor([6.])",
            },
        ],
    }


def test_a_code_answer_is_queued_after_commit_with_a_job_id(submitted: Any) -> None:
    attempt, response, callbacks = submitted
    assert response.status == ResponseStatus.QUEUED
    assert response.job_id.startswith(f"response-{response.pk}-")
    assert len(callbacks) == 1  # the runner hand-off waits for the commit
    assert attempt.status == AttemptStatus.SUBMITTED


def test_the_job_carries_the_answer_reference_and_cases_but_is_built_from_the_version(
    submitted: Any,
) -> None:
    _, response, _ = submitted
    job = code_job(response, response.job_id)
    assert job.source == SOURCE
    assert job.reference_source == CODE["files"]["reference.py"]
    assert [case["name"] for case in job.cases] == ["small", "secret"]
    assert job.entry_point == "double"


def _status_within(response: Response, seconds: float) -> list[str]:
    seen = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen.append(Response.objects.get(pk=response.pk).status)
        time.sleep(0.02)
    return seen


def test_a_grading_still_going_after_a_moment_is_marked_running(
    transactional_db: None, submitted: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(grading.signals, "RUNNING_MARK_AFTER_S", 0.05)
    _, response, _ = submitted
    task_prerun.send(sender=None, task_id=response.job_id, task=None, args=(), kwargs={})
    try:
        seen = _status_within(response, 1.0)
    finally:
        task_postrun.send(sender=None, task_id=response.job_id, task=None, args=(), kwargs={})
    assert seen[0] == ResponseStatus.QUEUED
    assert seen[-1] == ResponseStatus.RUNNING


def test_a_grading_that_ends_within_the_moment_is_never_marked_running(
    transactional_db: None, submitted: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(grading.signals, "RUNNING_MARK_AFTER_S", 0.2)
    _, response, _ = submitted
    task_prerun.send(sender=None, task_id=response.job_id, task=None, args=(), kwargs={})
    task_postrun.send(sender=None, task_id=response.job_id, task=None, args=(), kwargs={})
    assert set(_status_within(response, 0.5)) == {ResponseStatus.QUEUED}


@pytest.mark.parametrize(
    ("score", "stored"),
    [(float("nan"), 0.0), ("0.5; drop", 0.0), (None, 0.0), (7.0, 1.0), (-1.0, 0.0)],
    ids=["nan", "not a number", "missing", "above one", "below zero"],
)
def test_a_score_that_is_not_a_share_is_stored_as_one(
    submitted: Any, score: Any, stored: float
) -> None:
    _, response, _ = submitted
    assert code_result_apply(payload=_result(response.job_id, score), now=timezone.now())
    response.refresh_from_db()
    assert response.status == ResponseStatus.GRADED
    assert response.score == stored


def test_a_result_is_applied_once_and_masks_hidden_cases(submitted: Any) -> None:
    attempt, response, _ = submitted
    assert code_result_apply(payload=_result(response.job_id), now=timezone.now()) is True
    assert code_result_apply(payload=_result(response.job_id, 1.0), now=timezone.now()) is False

    response.refresh_from_db()
    attempt.refresh_from_db()
    assert (response.status, response.score) == (ResponseStatus.GRADED, 0.5)
    hidden = {"name": "hidden case", "hidden": True, "passed": False, "message": ""}
    assert response.feedback["cases"][1] == hidden
    assert "expected tensor" not in str(response.feedback)
    assert attempt.status == AttemptStatus.GRADED
    assert str(attempt.score) == "2.500"  # 1 (choice) + 0.5 x 3 (code)


def test_a_hidden_case_keeps_only_the_runners_phrase_for_the_kind_of_failure(
    submitted: Any,
) -> None:
    _attempt, response, _ = submitted
    payload = _result(response.job_id)
    phrase = "hidden case failed: the gradients differ from the expected ones"
    payload["cases"][1]["message"] = phrase
    code_result_apply(payload=payload, now=timezone.now())
    response.refresh_from_db()
    assert response.feedback["cases"][1]["message"] == phrase


def test_an_unknown_job_id_changes_nothing(submitted: Any) -> None:
    assert code_result_apply(payload=_result("response-0-nope"), now=timezone.now()) is False


def test_a_result_without_a_job_id_touches_no_answer(
    submitted: Any, django_assert_num_queries: Any
) -> None:
    """Answers not yet sent to the runner have an empty job id: a result naming none (or
    another kind of job) must not find, lock or grade one of them."""
    for job_id in ("", "run-0"):
        with django_assert_num_queries(0):
            assert code_result_apply(payload=_result(job_id), now=timezone.now()) is False


def test_an_internal_runner_failure_is_an_error_not_a_zero(submitted: Any) -> None:
    attempt, response, _ = submitted
    code_result_apply(payload=_result(response.job_id, 0.0, "internal"), now=timezone.now())
    response.refresh_from_db()
    assert response.status == ResponseStatus.ERROR
    assert response.score is None
    attempt.refresh_from_db()
    # Not a final zero: the attempt (and any LMS grade) waits for the regrade.
    assert attempt.status == AttemptStatus.SUBMITTED
    assert attempt.graded_at is None


def test_the_grader_failing_tells_the_student_so_without_its_details(submitted: Any) -> None:
    attempt, response, _ = submitted
    failed = {
        **_result(response.job_id, 0.0, "internal"),
        "message": "the reference solution failed: case 1: it raised RuntimeError: SECRET",
        "stderr": "Traceback ... reference.py ... SECRET",
    }
    code_result_apply(payload=failed, now=timezone.now())
    response.refresh_from_db()
    assert response.feedback["message"] == GRADER_FAILED
    assert "SECRET" not in str(response.feedback)


def test_a_stored_question_the_runner_contract_refuses_ends_as_an_error_naming_the_field(
    db: None, django_capture_on_commit_callbacks: Any
) -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    broken = {**CODE, "compare": {"rtol": 1e-3, "rtool": 1e-2}}  # a typo, once silently dropped
    add_slots(quiz, make_question(course, broken))
    attempt = attempt_start(quiz=quiz, user=member(course, Role.STUDENT), now=timezone.now())
    response_autosave(
        attempt=attempt, position=0, answer={"source": SOURCE}, version=0, now=timezone.now()
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        attempt_submit(attempt=attempt, now=timezone.now())
    response = Response.objects.get(attempt=attempt)
    assert response.status == ResponseStatus.ERROR
    assert "compare.rtool: unknown field" in response.feedback["general"]
    assert response.answer == {"source": SOURCE}  # kept for a regrade once the question is fixed
    assert callbacks == []  # nothing half-built reaches the runner


def test_the_job_takes_the_question_settings_through_the_runner_contract(submitted: Any) -> None:
    _, response, _ = submitted
    version = response.question_version
    version.content = {**version.content, "compare": {"atol": 0.5}, "limits": {"time_s": 2}}
    job = code_job(response, response.job_id)
    assert (job.compare.atol, job.compare.rtol) == (0.5, 1e-5)
    assert (job.limits.time_s, job.limits.memory_mb) == (2.0, 1024)


@pytest.fixture
def queued_messages(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """Tasks sent to the broker (their name and args) instead of sending them."""
    sent: list[tuple[str, Any]] = []

    def apply_async(self: Signature[Any], args: Any = (), **_: Any) -> None:
        sent.append((str(self.task), args))

    monkeypatch.setattr(Signature, "apply_async", apply_async)
    return sent


def test_the_grading_worker_applies_the_result_itself_with_no_second_message(
    submitted: Any, queued_messages: list[tuple[str, Any]]
) -> None:
    _, response, _ = submitted

    result_deliver(_result(response.job_id), dict(code_result_callback()))

    response.refresh_from_db()
    assert (response.status, response.score) == (ResponseStatus.GRADED, 0.5)
    assert queued_messages == []


def test_a_result_the_worker_cannot_apply_is_queued_for_the_retrying_task(
    submitted: Any, queued_messages: list[tuple[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, response, _ = submitted

    def database_restarting(**_: Any) -> bool:
        raise OperationalError("the database system is starting up")

    monkeypatch.setattr(grading.tasks, "code_result_apply", database_restarting)
    result = _result(response.job_id)

    result_deliver(result, dict(code_result_callback()))

    assert queued_messages == [("grading.apply_code_result", (result,))]
    response.refresh_from_db()
    assert response.status == ResponseStatus.QUEUED


def test_the_running_mark_and_the_code_grade_skip_the_disk_wait_but_the_submit_does_not(
    db: None, django_capture_on_commit_callbacks: Any
) -> None:
    """What a crash of PostgreSQL may lose is worked out again (the sweeper re-sends the
    job); the submit it starts from is not."""
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, make_question(course, CODE))
    attempt = attempt_start(quiz=quiz, user=member(course, Role.STUDENT), now=timezone.now())
    response_autosave(
        attempt=attempt, position=0, answer={"source": SOURCE}, version=0, now=timezone.now()
    )
    with CaptureQueriesContext(connection) as submitting, django_capture_on_commit_callbacks():
        attempt_submit(attempt=attempt, now=timezone.now())
    response = Response.objects.get(attempt=attempt)
    with CaptureQueriesContext(connection) as marking:
        code_result_mark_running(job_id=response.job_id)
    with CaptureQueriesContext(connection) as grading:
        code_result_apply(payload=_result(response.job_id), now=timezone.now())

    assert not any("synchronous_commit" in q["sql"] for q in submitting)
    assert "SET LOCAL synchronous_commit TO OFF" in [q["sql"] for q in marking]
    assert "SET LOCAL synchronous_commit TO OFF" in [q["sql"] for q in grading]
    response.refresh_from_db()
    assert (response.status, response.score) == (ResponseStatus.GRADED, 0.5)

"""Code answers: persisted, queued after commit, results applied once per job id."""

from typing import Any

import pytest
from celery.signals import task_prerun
from django.utils import timezone

from grading.models import Attempt, AttemptStatus, Response, ResponseStatus
from grading.services.attempts import attempt_start
from grading.services.code import code_job, code_result_apply
from grading.services.responses import attempt_submit, response_autosave
from quizbank.models import Role
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


def test_a_worker_starting_the_job_marks_the_response_running(submitted: Any) -> None:
    _, response, _ = submitted
    task_prerun.send(sender=None, task_id=response.job_id, task=None, args=(), kwargs={})
    response.refresh_from_db()
    assert response.status == ResponseStatus.RUNNING


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


def test_an_internal_runner_failure_is_an_error_not_a_zero(submitted: Any) -> None:
    attempt, response, _ = submitted
    code_result_apply(payload=_result(response.job_id, 0.0, "internal"), now=timezone.now())
    response.refresh_from_db()
    assert response.status == ResponseStatus.ERROR
    assert response.score is None


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

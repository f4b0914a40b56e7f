"""When the grader, not the answer, fails (a job that stopped its worker three times, an
exception inside the grader itself), the runner ends the job `internal` and the answer waits
as an error for an examiner's regrade: never a final score of 0 with the attempt graded."""

from typing import Any

import pytest
from django.utils import timezone

from grading.models import Attempt, AttemptStatus, Response, ResponseStatus
from grading.services.attempts import attempt_start
from grading.services.code import code_job, code_result_apply
from grading.services.responses import attempt_submit, response_autosave
from quizbank.models import Role
from runner.models import JobRecord
from runner.records import MAX_DELIVERIES
from tests.grading.content import CODE
from tests.grading.factories import add_slots, member, new_course, new_quiz, question

SOURCE = "def double(x):\n    return x * 2\n"


@pytest.fixture
def waiting(db: None, django_capture_on_commit_callbacks: Any) -> Response:
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, question(course, CODE, points="2"))
    attempt = attempt_start(quiz=quiz, user=member(course, Role.STUDENT), now=timezone.now())
    response_autosave(
        attempt=attempt, position=0, answer={"source": SOURCE}, version=0, now=timezone.now()
    )
    with django_capture_on_commit_callbacks(execute=False):
        attempt_submit(attempt=attempt, now=timezone.now())
    return Response.objects.select_related("question_version").get(attempt=attempt)


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

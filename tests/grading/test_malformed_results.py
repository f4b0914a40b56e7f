"""A runner result that is not the shape it should be (cases that are not objects, a score
past a float's range) is applied as far as it can be, never raised; and one answer the
sweeper cannot handle never stops it from applying or re-sending the answers behind it."""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from grading.models import Response, ResponseStatus
from grading.services.attempts import attempt_start
from grading.services.code import code_responses_sweep, code_result_apply
from grading.services.responses import attempt_submit, response_autosave
from quizbank.models import Role
from runner import api as runner_api
from runner.records import job_record_finish
from tests.grading.content import CODE
from tests.grading.factories import add_slots, member, new_course, new_quiz, question

SOURCE = "def double(x):\n    return x * 2\n"


def _submitted(quiz: Any, course: Any, at: Any, capture: Any) -> Response:
    attempt = attempt_start(quiz=quiz, user=member(course, Role.STUDENT), now=at)
    response_autosave(attempt=attempt, position=0, answer={"source": SOURCE}, version=0, now=at)
    with capture(execute=False):
        attempt_submit(attempt=attempt, now=at)
    return Response.objects.get(attempt=attempt)


@pytest.fixture
def quiz_and_course(db: None) -> tuple[Any, Any]:
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, question(course, CODE))
    return quiz, course


@pytest.mark.parametrize(
    "bad",
    [
        {"cases": [None]},
        {"cases": ["small"]},
        {"cases": None},
        {"cases": {"small": 1}},
        {"score": 10**400},
    ],
    ids=["null case", "string case", "null cases", "cases object", "huge int score"],
)
def test_a_malformed_result_is_applied_or_refused_not_raised(
    quiz_and_course: tuple[Any, Any], django_capture_on_commit_callbacks: Any, bad: dict[str, Any]
) -> None:
    quiz, course = quiz_and_course
    response = _submitted(quiz, course, timezone.now(), django_capture_on_commit_callbacks)
    payload = {"job_id": response.job_id, "status": "ok", "score": 0.5, "cases": [], **bad}
    assert code_result_apply(payload=payload, now=timezone.now())
    response.refresh_from_db()
    assert response.status == ResponseStatus.GRADED
    assert response.score is not None
    assert 0.0 <= response.score <= 1.0
    assert all(isinstance(case, dict) for case in response.feedback["cases"])


def test_one_answer_the_sweeper_cannot_handle_does_not_stop_the_rest(
    quiz_and_course: tuple[Any, Any],
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(runner_api, "submit_grading", lambda job, **_: job.job_id)
    quiz, course = quiz_and_course
    hour_ago = timezone.now() - timedelta(hours=1)
    first = _submitted(quiz, course, hour_ago, django_capture_on_commit_callbacks)
    second = _submitted(
        quiz, course, hour_ago + timedelta(minutes=1), django_capture_on_commit_callbacks
    )
    bad = {"job_id": first.job_id, "status": "ok", "score": 0.0, "cases": [None]}
    good = {"job_id": second.job_id, "status": "ok", "score": 1.0, "cases": []}
    job_record_finish(job_id=first.job_id, kind="grade", result=bad)
    job_record_finish(job_id=second.job_id, kind="grade", result=good)

    monkeypatch.setattr(
        "grading.services.code.code_result_apply",
        _failing_for(first.job_id, code_result_apply),
    )
    with django_capture_on_commit_callbacks(execute=True):
        outcomes = code_responses_sweep(now=timezone.now())

    assert outcomes == {"failed": 1, "applied": 1}
    second.refresh_from_db()
    assert second.status == ResponseStatus.GRADED
    first.refresh_from_db()
    assert first.status == ResponseStatus.QUEUED  # left for the next sweep


def _failing_for(job_id: str, apply: Any) -> Any:
    """code_result_apply, raising for one job (as an unforeseen bug in it would)."""

    def applying(*, payload: dict[str, Any], now: Any) -> bool:
        if payload.get("job_id") == job_id:
            raise RuntimeError("an unforeseen failure applying this one result")
        return bool(apply(payload=payload, now=now))

    return applying

"""Code runs need a reason: a student runs code only for a code question of their own attempt
while it takes answers (autosave's rule, grace included); course staff may run code outside
any attempt. The API's `POST /api/code-runs/` and the quiz page's `POST /code-runs/` refuse
alike, in the one error shape."""

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from config.scopes import Scope
from grading.models import Attempt, Response
from grading.services.attempts import attempt_start
from grading.services.responses import attempt_submit
from lms.services.tokens import api_client_create, token_issue
from quizbank.models import Role
from quizbank.services.quiz_write import course_create
from runner.models import JobRecord
from tests.grading.content import CODE, NUMERIC
from tests.grading.factories import (
    add_slots,
    api_as,
    browser_as,
    member,
    new_author,
    new_course,
    new_quiz,
    new_user,
    question,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("celery_eager")]

SOURCE = "print(6 * 7)"
API, PAGE = "/api/code-runs/", "/code-runs/"
BOTH = pytest.mark.parametrize("path", [API, PAGE])


@dataclass
class Exam:
    student: User
    attempt: Attempt
    code: int  # the code question's position
    numeric: int  # the numeric question's position


def _exam(started_ago: timedelta = timedelta(0), **quiz_fields: Any) -> Exam:
    course = new_course()
    quiz = new_quiz(course=course, **quiz_fields)
    add_slots(quiz, question(course, NUMERIC), question(course, CODE))
    student = member(course, Role.STUDENT)
    attempt = attempt_start(quiz=quiz, user=student, now=timezone.now() - started_ago)
    positions = {
        r.question_version.content["type"]: r.position
        for r in Response.objects.filter(attempt=attempt).select_related("question_version")
    }
    return Exam(student, attempt, positions["code"], positions["numeric"])


def _post(user: User, path: str, body: dict[str, Any]) -> Any:
    if path == API:
        return api_as(user).post(path, body, format="json")
    return browser_as(user).post(path, body, content_type="application/json")


def _within(exam: Exam, position: int | None = None) -> dict[str, Any]:
    at = exam.code if position is None else position
    return {"code": SOURCE, "attempt": exam.attempt.pk, "position": at}


def _error(reply: Any, status: int, code: str) -> dict[str, Any]:
    assert reply.status_code == status, reply.content
    error: dict[str, Any] = reply.json()["error"]
    assert error["code"] == code
    assert not JobRecord.objects.exists()  # refused before anything was queued
    return error


@BOTH
def test_a_student_naming_no_attempt_is_refused_with_the_fields_to_give(path: str) -> None:
    for student in (_exam().student, new_user()):  # enrolled, and enrolled nowhere
        error = _error(_post(student, path, {"code": SOURCE}), 400, "code_run_needs_attempt")
        assert set(error["fields"]) == {"attempt", "position"}
        assert "only course staff may run code outside an attempt" in error["message"]


@BOTH
def test_an_attempt_without_a_position_or_of_the_wrong_type_is_a_400_naming_it(path: str) -> None:
    exam = _exam()
    alone = _post(exam.student, path, {"code": SOURCE, "attempt": exam.attempt.pk})
    assert _error(alone, 400, "invalid")["fields"] == {"position": ["Required with `attempt`."]}
    text = _post(exam.student, path, {**_within(exam), "attempt": str(exam.attempt.pk)})
    assert set(_error(text, 400, "invalid")["fields"]) == {"attempt"}
    too_big = _post(exam.student, path, {**_within(exam), "position": 2**63})
    assert set(_error(too_big, 400, "invalid")["fields"]) == {"position"}


@BOTH
def test_someone_elses_attempt_is_a_404_like_one_that_does_not_exist(path: str) -> None:
    exam = _exam()
    classmate = member(exam.attempt.quiz.course, Role.STUDENT)
    examiner = member(exam.attempt.quiz.course, Role.EXAMINER)  # may read it, not run in it
    missing = _error(_post(classmate, path, {**_within(exam), "attempt": 2**62}), 404, "not_found")
    for user in (classmate, examiner):
        assert _error(_post(user, path, _within(exam)), 404, "not_found") == missing


@BOTH
def test_a_submitted_attempt_runs_no_more_code(path: str) -> None:
    exam = _exam()
    attempt_submit(attempt=exam.attempt, now=timezone.now())
    error = _error(_post(exam.student, path, _within(exam)), 409, "attempt_closed")
    assert error["message"] == (
        f"The attempt has been submitted; attempt {exam.attempt.pk} runs no more code."
    )


@BOTH
def test_an_attempt_past_its_deadline_and_grace_runs_no_more_code(path: str) -> None:
    limits = {"time_limit": timedelta(minutes=10), "grace_period": timedelta(seconds=30)}
    late = _exam(started_ago=timedelta(minutes=11), **limits)
    error = _error(_post(late.student, path, _within(late)), 409, "deadline_passed")
    assert error["message"].startswith("Answers closed at ")
    assert error["message"].endswith(f"; attempt {late.attempt.pk} runs no more code.")
    # Within the grace period answers are still saved, and code still runs.
    in_grace = _exam(started_ago=timedelta(minutes=10, seconds=10), **limits)
    assert _post(in_grace.student, path, _within(in_grace)).status_code in (200, 202)


@BOTH
def test_a_position_that_is_not_a_code_question_is_refused(path: str) -> None:
    exam = _exam()
    error = _error(
        _post(exam.student, path, _within(exam, exam.numeric)), 400, "not_a_code_question"
    )
    assert error["fields"] == {"position": ["Not a code question."]}
    assert f"position {exam.numeric} of attempt {exam.attempt.pk} is a numeric" in error["message"]
    missing = _error(_post(exam.student, path, _within(exam, 7)), 404, "no_such_position")
    assert missing["message"] == f"Attempt {exam.attempt.pk} has no question at position 7."


def _output(user: User, path: str, reply: Any) -> str:
    if path == API:
        assert reply.status_code == 200, reply.content
        return str(reply.json()["stdout"])
    assert reply.status_code == 202, reply.content
    polled = browser_as(user).get(f"{PAGE}{reply.json()['job']}/").json()
    assert polled["finished"] is True
    return str(polled["stdout"])


@BOTH
def test_a_code_question_of_the_students_open_attempt_runs(path: str) -> None:
    exam = _exam()
    assert _output(exam.student, path, _post(exam.student, path, _within(exam))) == "42\n"


@BOTH
def test_course_staff_run_code_without_an_attempt(path: str) -> None:
    admin = User.objects.create(username="root", is_superuser=True)
    examiner = member(new_course(), Role.EXAMINER)
    for user in (new_author(), examiner, admin):
        reply = _post(user, path, {"code": SOURCE})
        assert _output(user, path, reply) == "42\n"


def test_refused_runs_leave_the_students_rate_for_runs_that_happen(monkeypatch: Any) -> None:
    cache.clear()
    # The rates are read once at import; patch the class for this test only.
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"code_run": "2/min"})
    exam = _exam()
    for path in (API, PAGE):  # both endpoints count against the one rate
        for body in ({"code": SOURCE}, _within(exam, exam.numeric), _within(exam, 7)):
            assert _post(exam.student, path, body).status_code in (400, 404)
    assert not JobRecord.objects.exists()
    assert _post(exam.student, API, _within(exam)).status_code == 200
    assert _post(exam.student, PAGE, _within(exam)).status_code == 202
    throttled = _post(exam.student, API, _within(exam))
    assert throttled.status_code == 429, throttled.content
    assert throttled.json()["error"]["code"] == "throttled"
    assert JobRecord.objects.count() == 2


@BOTH
def test_an_api_client_runs_no_code_even_in_a_course_it_authors(path: str) -> None:
    client = api_client_create(name="Roster sync")
    course_create(slug="its-own", title="Its own", owner_id=client.user_id)
    _, key = token_issue(client=client, scopes=Scope.values)
    reply = APIClient().post(
        path, {"code": SOURCE}, format="json", HTTP_AUTHORIZATION=f"Bearer {key}"
    )
    _error(reply, 403, "scope_missing")


def test_the_quiz_pages_run_needs_the_pages_csrf_token() -> None:
    exam = _exam()
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(exam.student)
    reply = browser.post(PAGE, _within(exam), content_type="application/json")
    assert "CSRF" in _error(reply, 403, "permission_denied")["message"]

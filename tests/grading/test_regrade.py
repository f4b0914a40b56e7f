"""Bulk regrade after a corrected question: keep vs apply, logged changes, progress."""

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

import grading.tasks  # noqa: F401  (registers the tasks eager mode runs by name)
from config.celery import app
from grading.models import Attempt, Response
from grading.models.marking import ScoreChange, ScoreSource
from grading.models.regrade import RegradeItem, RegradeRun
from quizbank.models import Question
from tests.grading.content import NUMERIC, SINGLE, VIVA, VIVA_TWO_CRITERIA
from tests.grading.factories import (
    Staff,
    api_as,
    new_version,
    staffed_quiz,
    submitted_attempt,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def eager(django_capture_on_commit_callbacks: Any) -> Iterator[Any]:
    app.conf.task_always_eager = True
    try:
        yield django_capture_on_commit_callbacks
    finally:
        app.conf.task_always_eager = False


# The author had marked the wrong choice correct; the fix makes "3" (index 0) right.
BROKEN = {**SINGLE, "choices": [{**c, "correct": i == 1} for i, c in enumerate(SINGLE["choices"])]}


@pytest.fixture
def setup() -> tuple[Staff, Question, list[Response]]:
    staff, (question, numeric) = staffed_quiz(BROKEN, NUMERIC, points="2")
    picks = [0, 0, 1]
    responses = []
    for pick in picks:
        student = User.objects.create(username=f"s{pick}-{User.objects.count()}")
        staff.course.memberships.create(user=student, role="student")
        attempt = submitted_attempt(staff.quiz, student, {0: {"choice": pick}, 1: {"value": 11}})
        responses.append(attempt.responses.get(position=0))
    new_version(question, SINGLE)
    return staff, question, responses


def _start(staff: Staff, question: Question, mode: str, eager: Any) -> Any:
    client = APIClient()
    client.force_authenticate(staff.examiner)
    body = {"question": question.pk, "mode": mode, "reason": "Choice key was wrong"}
    with eager(execute=True):
        reply = client.post(f"/api/quizzes/{staff.quiz.pk}/regrade-runs/", body, format="json")
    assert reply.status_code == 201, reply.json()
    return client.get(f"/api/regrade-runs/{reply.json()['id']}/").json()


def test_applying_the_new_version_rescores_and_logs_every_change(setup: Any, eager: Any) -> None:
    staff, question, responses = setup
    run = _start(staff, question, "apply", eager)
    assert (run["status"], run["total"], run["done"], run["changed"], run["failed"]) == (
        "done",
        3,
        3,
        3,
        0,
    )
    scores = [Response.objects.get(pk=r.pk) for r in responses]
    assert [r.score for r in scores] == [1.0, 1.0, 0.0]
    assert {r.question_version_id for r in scores} == {question.current_version_id}
    log = ScoreChange.objects.filter(source=ScoreSource.REGRADE).order_by("response_id")
    assert [(c.before, c.after) for c in log] == [(0.0, 1.0), (0.0, 1.0), (1.0, 0.0)]
    assert all(c.actor == staff.examiner and c.regrade_run_id == run["id"] for c in log)
    assert "Choice key was wrong (apply" in log[0].reason
    attempt = Attempt.objects.get(pk=responses[0].attempt_id)
    assert float(attempt.score or 0) == pytest.approx(4.0)  # 2 (choice) + 2 (numeric)


def test_keeping_the_pinned_version_changes_nothing(setup: Any, eager: Any) -> None:
    staff, question, responses = setup
    run = _start(staff, question, "keep", eager)
    assert (run["done"], run["changed"]) == (3, 0)
    assert [Response.objects.get(pk=r.pk).score for r in responses] == [0.0, 0.0, 1.0]
    assert not ScoreChange.objects.exists()
    assert {i.status for i in RegradeItem.objects.all()} == {"done"}


def test_a_run_for_an_unanswered_question_is_refused(setup: Any, eager: Any) -> None:
    staff, question, _ = setup
    other = Question.objects.exclude(pk=question.pk).exclude(course=staff.course).first()
    client = APIClient()
    client.force_authenticate(staff.examiner)
    url = f"/api/quizzes/{staff.quiz.pk}/regrade-runs/"
    Response.objects.filter(question_version__question=question).update(status="error", score=None)
    Response.objects.filter(question_version__question=question).delete()
    reply = client.post(
        url, {"question": question.pk, "mode": "keep", "reason": "x"}, format="json"
    )
    assert reply.json()["error"]["code"] == "nothing_to_regrade"
    assert (
        other is None
        or client.post(
            url, {"question": other.pk, "mode": "keep", "reason": "x"}, format="json"
        ).status_code
        == 404
    )


def test_students_and_other_courses_cannot_start_or_see_runs(setup: Any, eager: Any) -> None:
    staff, question, _ = setup
    run = _start(staff, question, "keep", eager)
    for user, code in ((staff.student, 403), (staff.outsider, 404)):
        client = APIClient()
        client.force_authenticate(user)
        assert client.get(f"/api/regrade-runs/{run['id']}/").status_code == code
        body = {"question": question.pk, "mode": "keep", "reason": "x"}
        url = f"/api/quizzes/{staff.quiz.pk}/regrade-runs/"
        assert client.post(url, body, format="json").status_code == code
    assert RegradeRun.objects.count() == 1


def test_a_second_run_of_the_same_question_waits_for_the_first(setup: Any) -> None:
    """Without a worker the first run stays pending: a double click is refused, not run twice."""
    staff, question, _ = setup
    client = APIClient()
    client.force_authenticate(staff.examiner)
    url = f"/api/quizzes/{staff.quiz.pk}/regrade-runs/"
    body = {"question": question.pk, "mode": "keep", "reason": "Choice key was wrong"}
    first = client.post(url, body, format="json")
    assert first.status_code == 201
    again = client.post(url, body, format="json")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "regrade_in_progress"
    assert RegradeRun.objects.count() == 1
    RegradeRun.objects.filter(pk=first.json()["id"]).update(status="done")
    assert client.post(url, body, format="json").status_code == 201


def test_a_run_says_which_answers_failed_and_why(eager: Any) -> None:
    # The new rubric drops a criterion: the examiner's two-level mark no longer fits it.
    staff, (viva,) = staffed_quiz(VIVA_TWO_CRITERIA)
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "It adds up."}})
    answer = attempt.responses.get(position=0)
    marks = f"/api/marking/responses/{answer.pk}/marks/"
    assert api_as(staff.examiner).post(marks, {"levels": [1, 1]}, format="json").status_code == 201
    new_version(viva, VIVA)
    run = _start(staff, viva, "apply", eager)
    assert (run["status"], run["failed"]) == ("done", 1)
    assert [f["response"] for f in run["failures"]] == [answer.pk]
    assert "criteria" in run["failures"][0]["message"]
    listed = api_as(staff.examiner).get("/api/regrade-runs/").json()["results"]
    assert listed[0]["failures"] == run["failures"]

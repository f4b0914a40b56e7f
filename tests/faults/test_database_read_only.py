"""A database that turns read-only mid-exam: a clear 503 to retry, nothing half-written.

The real PostgreSQL refuses every write of this session's transactions
(`default_transaction_read_only`), as a replica promoted wrongly or a full disk would.
"""

import pytest
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from grading.models import Attempt, AttemptStatus, Response
from quizbank.models import Role
from tests.api.helpers import save, start, submit
from tests.grading.content import SHORT_TEXT
from tests.grading.factories import add_slots, api_as, member, new_course, new_quiz, question

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def student() -> APIClient:
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, question(course, SHORT_TEXT))
    client = api_as(member(course, Role.STUDENT))
    client.quiz_id = quiz.pk  # type: ignore[attr-defined]  # carried for the test only
    return client


def _turn_read_only() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SET default_transaction_read_only = on")


def _turn_writable() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SET default_transaction_read_only = off")


def test_an_autosave_to_a_read_only_database_is_a_503_and_keeps_the_saved_answer(
    student: APIClient,
) -> None:
    attempt = start(student, student.quiz_id)["id"]  # type: ignore[attr-defined]
    assert save(student, attempt, 0, {"text": "grad_fn"}).status_code == 200

    _turn_read_only()
    try:
        refused = save(student, attempt, 0, {"text": "overwritten"}, version=1)
    finally:
        _turn_writable()

    assert refused.status_code == 503
    assert refused["Retry-After"] == "5"
    assert refused.json()["error"]["code"] == "database_read_only"
    assert set(refused.json()["error"]) == {"code", "message", "fields"}
    row = Response.objects.get(attempt_id=attempt, position=0)
    assert row.answer == {"text": "grad_fn"}
    assert row.version == 1
    assert save(student, attempt, 0, {"text": "x.grad_fn"}, version=1).status_code == 200


def test_a_submit_to_a_read_only_database_is_a_503_and_leaves_the_attempt_open(
    student: APIClient,
) -> None:
    attempt = start(student, student.quiz_id)["id"]  # type: ignore[attr-defined]
    save(student, attempt, 0, {"text": "grad_fn"})

    _turn_read_only()
    try:
        refused = submit(student, attempt, key="ro-1")
    finally:
        _turn_writable()

    assert refused.status_code == 503
    assert Attempt.objects.get(pk=attempt).status == AttemptStatus.OPEN
    assert submit(student, attempt, key="ro-1").status_code == 200
    assert Attempt.objects.get(pk=attempt).status != AttemptStatus.OPEN


def test_starting_from_the_dashboard_on_a_read_only_database_is_a_503_page_to_retry() -> None:
    # The pages write too (the dashboard's Start, the quiz page's submit at the deadline): a
    # database that cannot take the write (read-only here, a locked SQLite file under
    # `make run`) is the same retryable 503 the API answers, not the 500 page.
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, question(course, SHORT_TEXT))
    browser = Client()
    browser.force_login(member(course, Role.STUDENT))

    _turn_read_only()
    try:
        refused = browser.post(f"/quizzes/{quiz.pk}/start/")
    finally:
        _turn_writable()

    assert refused.status_code == 503
    assert refused["Retry-After"] == "5"
    assert "nothing was changed" in refused.text
    assert not Attempt.objects.filter(quiz=quiz).exists()
    assert browser.post(f"/quizzes/{quiz.pk}/start/").status_code == 302

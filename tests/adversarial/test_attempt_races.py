"""Races on starting attempts, run on real transactions in two threads."""

import threading

import pytest
from django.db import connection, transaction
from django.utils import timezone

from grading.models import Attempt
from grading.services.attempts import attempt_start
from grading.services.viva_sessions import viva_session_start
from quizbank.models import QuizAccessOverride
from tests.grading.factories import Staff, api_as, viva_staff

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def staff() -> Staff:
    return viva_staff()


def _viva_held_open(staff: Staff, inserted: threading.Event, release: threading.Event) -> None:
    try:
        with transaction.atomic():
            viva_session_start(
                quiz=staff.quiz, student=staff.student, examiner=staff.examiner, now=timezone.now()
            )
            inserted.set()
            release.wait(timeout=10)
    finally:
        connection.close()


def test_a_start_racing_a_live_viva_for_the_same_attempt_number_is_a_conflict_not_a_500(
    staff: Staff,
) -> None:
    inserted, release = threading.Event(), threading.Event()
    examiner = threading.Thread(target=_viva_held_open, args=(staff, inserted, release))
    examiner.start()
    assert inserted.wait(timeout=10)
    # The student's insert of attempt number 1 waits on the viva's uncommitted number 1.
    threading.Timer(0.5, release.set).start()
    client = api_as(staff.student)
    client.raise_request_exception = False
    reply = client.post(f"/api/quizzes/{staff.quiz.pk}/attempts/", {}, format="json")
    examiner.join(timeout=10)
    assert reply.status_code == 409, reply.content
    assert reply.json()["error"]["code"] == "attempt_in_progress"
    assert list(Attempt.objects.values_list("number", "live_viva")) == [(1, True)]
    retried = client.post(f"/api/quizzes/{staff.quiz.pk}/attempts/", {}, format="json")
    assert (retried.status_code, retried.json()["number"]) == (201, 2)


def _open_attempt_held(staff: Staff, inserted: threading.Event, release: threading.Event) -> None:
    """Another tab's start: its open attempt inserted, not yet committed, while the quiz
    terms' table is locked so the racing start pauses between its reads."""
    try:
        with transaction.atomic():
            attempt_start(quiz=staff.quiz, user=staff.student, now=timezone.now())
            with connection.cursor() as cursor:
                table = QuizAccessOverride._meta.db_table
                cursor.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
            inserted.set()
            release.wait(timeout=10)
    finally:
        connection.close()


def test_a_second_tab_starting_at_once_resumes_the_only_attempt_instead_of_being_refused(
    staff: Staff,
) -> None:
    staff.quiz.attempts_allowed = 1
    staff.quiz.save()
    inserted, release = threading.Event(), threading.Event()
    first_tab = threading.Thread(target=_open_attempt_held, args=(staff, inserted, release))
    first_tab.start()
    assert inserted.wait(timeout=10)
    threading.Timer(0.5, release.set).start()
    client = api_as(staff.student)
    reply = client.post(f"/api/quizzes/{staff.quiz.pk}/attempts/", {}, format="json")
    first_tab.join(timeout=10)
    assert reply.status_code == 200, reply.content  # the first tab's attempt, resumed
    assert [reply.json()["id"]] == list(Attempt.objects.values_list("pk", flat=True))

"""Grade rows per quiz for an LMS: external id, score, status, release, updated_at."""

import csv
import io
from datetime import timedelta

import time_machine
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from grading.models import Response
from lms.services.grades import quiz_grade_rows
from lms.services.users import user_create
from quizbank.models import Quiz, ReleasePolicy
from tests.grading.content import TRUE_FALSE, VIVA
from tests.grading.factories import (
    add_slots,
    api_as,
    member,
    new_quiz,
    question,
    submitted_attempt,
)
from tests.lms.conftest import MakeClient


def _quiz_with_viva(release_policy: str = ReleasePolicy.IMMEDIATELY) -> Quiz:
    quiz = new_quiz(release_policy=release_policy, shuffle_choices=False)
    add_slots(quiz, question(quiz.course, TRUE_FALSE), question(quiz.course, VIVA, points="2"))
    return quiz


def _mark_viva(examiner: User, attempt_id: int, level: int) -> None:
    viva = Response.objects.get(attempt_id=attempt_id, question_version__question__type="viva")
    reply = api_as(examiner).post(
        f"/api/marking/responses/{viva.pk}/marks/", {"levels": [level]}, format="json"
    )
    assert reply.status_code in (200, 201), reply.content


def test_rows_show_status_score_and_release_by_external_id(make_client: MakeClient) -> None:
    client, api = make_client(scopes=["grades:read"])
    quiz = _quiz_with_viva()
    member(quiz.course, "examiner", client.user)
    examiner = member(quiz.course, "examiner")
    took = user_create(namespace=client.namespace, external_id="s-1", username="took").user
    member(quiz.course, "student", took)
    member(
        quiz.course,
        "student",
        user_create(namespace=client.namespace, external_id="s-2", username="idle").user,
    )
    attempt = submitted_attempt(quiz, took, {0: {"value": True}, 1: {"text": "It sums."}})
    rows = {r["external_id"]: r for r in api.get(f"/api/quizzes/{quiz.pk}/grades/").json()}
    assert rows["s-1"]["status"] == "pending_manual"
    assert rows["s-1"]["score"] is None
    assert rows["s-2"]["status"] == "not_attempted"
    assert rows["s-2"]["updated_at"] is None
    _mark_viva(examiner, attempt.pk, 1)
    rows = {r["external_id"]: r for r in api.get(f"/api/quizzes/{quiz.pk}/grades/").json()}
    assert rows["s-1"]["status"] == "fully_graded"
    assert rows["s-1"]["score"] == "2.000"
    assert rows["s-1"]["max_score"] == "3.000"
    assert rows["s-1"]["released"] is True


def test_a_manual_release_quiz_shows_scores_as_unreleased(make_client: MakeClient) -> None:
    client, api = make_client(scopes=["grades:read"])
    quiz = new_quiz(release_policy=ReleasePolicy.MANUAL)
    add_slots(quiz, question(quiz.course, TRUE_FALSE))
    member(quiz.course, "examiner", client.user)
    student = user_create(namespace=client.namespace, external_id="s-1").user
    member(quiz.course, "student", student)
    submitted_attempt(quiz, student, {0: {"value": True}})
    [row] = api.get(f"/api/quizzes/{quiz.pk}/grades/").json()
    assert (row["status"], row["score"], row["released"]) == ("fully_graded", "1.000", False)


def test_updated_since_returns_only_rows_changed_since(make_client: MakeClient) -> None:
    client, api = make_client(scopes=["grades:read"])
    quiz = _quiz_with_viva()
    member(quiz.course, "examiner", client.user)
    examiner = member(quiz.course, "examiner")
    early, late = (user_create(namespace=client.namespace, external_id=e).user for e in "ab")
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        submitted_attempt(quiz, early, {0: {"value": True}}, now=start)
        attempt = submitted_attempt(quiz, late, {0: {"value": False}}, now=start)
    with time_machine.travel(start + timedelta(hours=1), tick=False):
        _mark_viva(examiner, attempt.pk, 2)
    since = (start + timedelta(minutes=30)).isoformat()
    rows = api.get(f"/api/quizzes/{quiz.pk}/grades/", {"updated_since": since}).json()
    assert [r["external_id"] for r in rows] == ["b"]
    everything = api.get(f"/api/quizzes/{quiz.pk}/grades/").json()
    assert len(everything) == 2


def test_a_bad_updated_since_is_a_400_naming_it(make_client: MakeClient) -> None:
    client, api = make_client(scopes=["grades:read"])
    quiz = new_quiz()
    member(quiz.course, "examiner", client.user)
    reply = api.get(f"/api/quizzes/{quiz.pk}/grades/", {"updated_since": "yesterday"})
    assert reply.status_code == 400
    assert list(reply.json()["error"]["fields"]) == ["updated_since"]


def test_the_csv_has_the_same_rows(make_client: MakeClient) -> None:
    client, api = make_client(scopes=["grades:read"])
    quiz = new_quiz()
    add_slots(quiz, question(quiz.course, TRUE_FALSE))
    member(quiz.course, "examiner", client.user)
    student = user_create(namespace=client.namespace, external_id="=cmd", username="s").user
    submitted_attempt(quiz, student, {0: {"value": True}})
    reply = api.get(f"/api/quizzes/{quiz.pk}/grades/export.csv")
    assert reply["Content-Type"].startswith("text/csv")
    [header, row] = list(csv.reader(io.StringIO(reply.content.decode())))
    assert header[:6] == ["user_id", "username", "external_id", "score", "max_score", "status"]
    assert row[1:7] == ["s", "'=cmd", "1.000", "1.000", "fully_graded", "true"]


def test_only_examiners_and_grade_readers_get_rows(make_client: MakeClient) -> None:
    quiz = new_quiz()
    student = member(quiz.course, "student")
    assert api_as(student).get(f"/api/quizzes/{quiz.pk}/grades/").status_code == 403
    examiner = member(quiz.course, "examiner")
    assert api_as(examiner).get(f"/api/quizzes/{quiz.pk}/grades/").status_code == 200
    client, roster_only = make_client(scopes=["roster:manage"])
    member(quiz.course, "examiner", client.user)
    assert roster_only.get(f"/api/quizzes/{quiz.pk}/grades/").status_code == 403
    _, outsider = make_client("other", scopes=["grades:read"])
    assert outsider.get(f"/api/quizzes/{quiz.pk}/grades/").status_code == 404


def _queries_for_rows(students: int) -> int:
    quiz = _quiz_with_viva(ReleasePolicy.AFTER_CLOSE)
    start = timezone.now()
    Quiz.objects.filter(pk=quiz.pk).update(closes_at=start + timedelta(hours=1))
    quiz.refresh_from_db()
    member(quiz.course, "student")  # a member without an attempt
    for _ in range(students):
        took = member(quiz.course, "student")
        submitted_attempt(quiz, took, {0: {"value": True}, 1: {"text": "It sums."}})
        submitted_attempt(quiz, took, {0: {"value": False}})
    Quiz.objects.filter(pk=quiz.pk).update(closes_at=start)  # closed: results released
    quiz.refresh_from_db()
    with CaptureQueriesContext(connection) as everything:
        rows = quiz_grade_rows(quiz=quiz, namespace=None, now=timezone.now())
    assert len(rows) == students + 1
    with CaptureQueriesContext(connection) as since:
        rows = quiz_grade_rows(quiz=quiz, namespace=None, now=timezone.now(), updated_since=start)
    assert len(rows) == students
    return len(everything) + len(since)


def test_rows_take_as_many_queries_for_twelve_students_as_for_three(db: None) -> None:
    assert _queries_for_rows(12) == _queries_for_rows(3)

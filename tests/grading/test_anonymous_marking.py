"""Anonymous marking: the queue and the marking view show pseudonyms until release."""

import json
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient

from grading.models import Attempt
from grading.services.marking.policy import candidate_pseudonym
from quizbank.models import ReleasePolicy
from tests.grading.content import SINGLE, VIVA
from tests.grading.factories import Staff, api_as, member, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db

PSEUDONYM = re.compile(r"^Candidate [0-9A-F]{6}$")


@pytest.fixture
def staff() -> Staff:
    """Two students (named so a leak is easy to spot) have answered the viva."""
    made, _ = staffed_quiz(SINGLE, VIVA, points="4")
    made.quiz.release_policy = ReleasePolicy.MANUAL
    made.quiz.save()
    for name in ("ada-lovelace", "alan-turing"):
        student = member(made.course, "student", User.objects.create(username=name))
        submitted_attempt(made.quiz, student, {0: {"choice": 0}, 1: {"text": "it sums"}})
    return made


def _policy(staff: Staff, client: APIClient, **fields: Any) -> Any:
    body = {"double_marking": False, "disagreement_threshold": 0.2, **fields}
    return client.put(f"/api/quizzes/{staff.quiz.pk}/marking-policy/", body, format="json")


def _queue(staff: Staff, **params: str) -> Any:
    query = {"quiz": str(staff.quiz.pk), **params}
    return api_as(staff.examiner).get("/api/marking/queue/", query)


def test_only_an_examiner_of_the_course_turns_anonymous_marking_on(staff: Staff) -> None:
    assert _policy(staff, api_as(staff.student), anonymous_marking=True).status_code == 403
    assert _policy(staff, api_as(staff.outsider), anonymous_marking=True).status_code == 404
    assert _policy(staff, APIClient(), anonymous_marking=True).status_code in (401, 403)
    url = f"/api/quizzes/{staff.quiz.pk}/marking-policy/"
    assert api_as(staff.examiner).get(url).json()["anonymous_marking"] is False

    assert _policy(staff, api_as(staff.examiner), anonymous_marking=True).status_code == 200
    # Leaving the field out keeps the setting.
    assert _policy(staff, api_as(staff.examiner)).json()["anonymous_marking"] is True
    assert api_as(staff.student).get(url).status_code == 403


def test_the_queue_and_the_marking_view_show_one_stable_pseudonym(staff: Staff) -> None:
    _policy(staff, api_as(staff.examiner), anonymous_marking=True)
    for params in ({}, {"anonymous": "false"}):  # a request cannot lift the quiz's policy
        reply = _queue(staff, **params)
        assert b"ada-lovelace" not in reply.content
        assert b"alan-turing" not in reply.content
        rows = reply.json()["results"]
        assert [row["anonymous"] for row in rows] == [True, True]
        names = [row["student"] for row in rows]
        assert all(PSEUDONYM.match(name) for name in names)
        assert len(set(names)) == 2
    for row in rows:
        view = api_as(staff.examiner).get(f"/api/marking/responses/{row['id']}/")
        assert b"ada-lovelace" not in view.content
        assert b"alan-turing" not in view.content
        assert (view.json()["student"], view.json()["anonymous"]) == (row["student"], True)
        assert _queue(staff).json()["results"][rows.index(row)]["student"] == row["student"]


def test_an_examiner_may_ask_for_pseudonyms_on_any_quiz(staff: Staff) -> None:
    named = {row["student"] for row in _queue(staff).json()["results"]}
    assert named == {"ada-lovelace", "alan-turing"}
    hidden = _queue(staff, anonymous="true").json()["results"]
    assert all(PSEUDONYM.match(row["student"]) for row in hidden)
    view = api_as(staff.examiner).get(
        f"/api/marking/responses/{hidden[0]['id']}/", {"anonymous": "true"}
    )
    assert view.json()["student"] == hidden[0]["student"]


def test_names_come_back_once_the_mark_is_final_and_released(staff: Staff) -> None:
    _policy(staff, api_as(staff.examiner), anonymous_marking=True)
    for row in _queue(staff).json()["results"]:
        api_as(staff.examiner).post(
            f"/api/marking/responses/{row['id']}/marks/", {"levels": [2]}, format="json"
        )
    assert all(row["anonymous"] for row in _queue(staff).json()["results"])  # marked, unreleased
    assert api_as(staff.examiner).post(f"/api/quizzes/{staff.quiz.pk}/release/").status_code == 200
    rows = _queue(staff).json()["results"]
    assert {row["student"] for row in rows} == {"ada-lovelace", "alan-turing"}
    assert [row["anonymous"] for row in rows] == [False, False]


def test_a_pseudonym_is_keyed_by_the_quiz_and_the_sites_secret(staff: Staff) -> None:
    student = Attempt.objects.filter(quiz=staff.quiz).first()
    assert student is not None
    one = candidate_pseudonym(quiz_id=staff.quiz.pk, user_id=student.user_id)
    assert one == candidate_pseudonym(quiz_id=staff.quiz.pk, user_id=student.user_id)
    assert one != candidate_pseudonym(quiz_id=staff.quiz.pk + 1, user_id=student.user_id)
    with override_settings(SECRET_KEY="another-secret-key-for-this-test"):
        assert one != candidate_pseudonym(quiz_id=staff.quiz.pk, user_id=student.user_id)


def _identities(staff: Staff) -> list[bytes]:
    """What would name a student: usernames, and the ids of users and attempts."""
    attempts = Attempt.objects.filter(quiz=staff.quiz)
    names = [a.user.username.encode() for a in attempts]
    ids = [f'"attempt": {a.pk}'.encode() for a in attempts]
    return names + ids + [f'"user": {a.user_id}'.encode() for a in attempts]


def _as_sent(reply: Any) -> bytes:
    return json.dumps(reply.json()).encode()


def test_anonymous_marking_carries_no_attempt_or_user_id_until_release(staff: Staff) -> None:
    _policy(staff, api_as(staff.examiner), anonymous_marking=True)
    queue = _queue(staff)
    rows = queue.json()["results"]
    assert [row["attempt"] for row in rows] == [None, None]
    sent = [_as_sent(queue)]
    for row in rows:
        url = f"/api/marking/responses/{row['id']}/"
        view = api_as(staff.examiner).get(url)
        assert view.json()["attempt"] is None
        api_as(staff.examiner).post(f"{url}marks/", {"levels": [2]}, format="json")
        sent += [_as_sent(view), _as_sent(api_as(staff.examiner).get(f"{url}history/"))]
    sent.append(_as_sent(_queue(staff)))  # marked, not yet released
    assert [leak for leak in _identities(staff) if any(leak in body for body in sent)] == []

    assert api_as(staff.examiner).post(f"/api/quizzes/{staff.quiz.pk}/release/").status_code == 200
    attempts = {a.pk for a in Attempt.objects.filter(quiz=staff.quiz)}
    assert {row["attempt"] for row in _queue(staff).json()["results"]} == attempts


def test_asking_for_pseudonyms_hides_the_attempt_id_too(staff: Staff) -> None:
    rows = _queue(staff, anonymous="true").json()["results"]
    assert [row["attempt"] for row in rows] == [None, None]
    view = api_as(staff.examiner).get(f"/api/marking/responses/{rows[0]['id']}/?anonymous=true")
    assert view.json()["attempt"] is None
    assert _queue(staff).json()["results"][0]["attempt"] is not None


def test_the_gradebook_still_names_students_under_anonymous_marking(staff: Staff) -> None:
    # The documented rule: anonymity covers the marking screens; the gradebook, attempt
    # list and exports stay available to examiners and name students (as Moodle's do).
    _policy(staff, api_as(staff.examiner), anonymous_marking=True)
    grades = api_as(staff.examiner).get(f"/api/quizzes/{staff.quiz.pk}/grades.csv")
    assert grades.status_code == 200
    assert b"ada-lovelace" in grades.content
    attempts = api_as(staff.examiner).get("/api/attempts/", {"quiz": staff.quiz.pk})
    assert len(attempts.json()["results"]) == 2

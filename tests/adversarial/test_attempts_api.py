"""A hostile student against the attempts API and the student pages: another student's
attempt, and their own results, feedback and correct answers before the release."""

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from grading.models import Attempt, AttemptStatus
from grading.services.attempts import attempt_start
from quizbank.models import ReleasePolicy, Role
from tests.grading.content import CODE, NUMERIC, SINGLE, VIVA
from tests.grading.factories import Staff, api_as, member, staffed_quiz

pytestmark = pytest.mark.django_db

# Text only an examiner or an author may see before (or, for some, even after) the release.
SECRETS = [
    "Three axes.",
    "That drops the batch axis.",
    "2x + 5 at 3.",
    "You dropped the linear term.",
    "MODEL-ANSWER-SECRET",
    "GUIDANCE-SECRET",
    "RUBRIC-SECRET",
    "return x * 2",
    "wrong_add",
    '"correct"',
    "tolerance",
]
ANSWERS = {0: {"choice": 0}, 1: {"value": 11}, 2: {"text": "It adds up."}}


@pytest.fixture
def staff() -> Staff:
    made, _ = staffed_quiz(SINGLE, NUMERIC, VIVA, CODE, points="2")
    made.quiz.release_policy = ReleasePolicy.MANUAL
    made.quiz.save()
    return made


def _answer_all(client: Any, attempt_id: int) -> None:
    for position, answer in ANSWERS.items():
        body = {"answer": answer, "version": 0}
        url = f"/api/attempts/{attempt_id}/responses/{position}/"
        assert client.put(url, body, format="json").status_code == 200


def _leaks(body: str) -> list[str]:
    return [secret for secret in SECRETS if secret in body]


def test_nothing_an_unreleased_attempt_returns_gives_away_scores_or_answers(staff: Staff) -> None:
    client = api_as(staff.student)
    browser = Client()
    browser.force_login(staff.student)
    started = client.post(f"/api/quizzes/{staff.quiz.pk}/attempts/", {}, format="json")
    attempt_id = started.json()["id"]
    _answer_all(client, attempt_id)
    bodies = [started.content.decode(), browser.get(f"/attempts/{attempt_id}/").content.decode()]
    submitted = client.post(f"/api/attempts/{attempt_id}/submit/")
    late = client.put(
        f"/api/attempts/{attempt_id}/responses/0/", {"answer": None, "version": 1}, format="json"
    )
    assert late.status_code == 409
    bodies += [
        submitted.content.decode(),
        late.content.decode(),
        client.get(f"/api/attempts/{attempt_id}/").content.decode(),
        client.get(f"/api/attempts/{attempt_id}/result/").content.decode(),
        client.get("/api/attempts/").content.decode(),
        client.get(f"/api/quizzes/{staff.quiz.pk}/grade/").content.decode(),
        browser.get(f"/attempts/{attempt_id}/result/").content.decode(),
        browser.get("/dashboard/").content.decode(),
    ]
    assert [_leaks(body) for body in bodies] == [[] for _ in bodies]
    result = client.get(f"/api/attempts/{attempt_id}/result/").json()
    assert (result["score"], result["final_score"], result["results_visible"]) == (
        None,
        None,
        False,
    )
    assert {(q["score"], q["points_awarded"], q["feedback"]) for q in result["questions"]} == {
        (None, None, None)
    }
    grade = client.get(f"/api/quizzes/{staff.quiz.pk}/grade/").json()
    assert grade["grade"] is None


def _attempt_of(staff: Staff) -> Attempt:
    return attempt_start(quiz=staff.quiz, user=staff.student, now=timezone.now())


@pytest.mark.parametrize("intruder", ["classmate", "outsider"])
def test_another_user_can_neither_read_nor_change_an_attempt(staff: Staff, intruder: str) -> None:
    attempt = _attempt_of(staff)
    other: User = member(staff.course, Role.STUDENT) if intruder == "classmate" else staff.outsider
    client = api_as(other)
    base = f"/api/attempts/{attempt.pk}"
    replies = [
        client.get(f"{base}/"),
        client.get(f"{base}/result/"),
        client.put(f"{base}/responses/0/", {"answer": {"choice": 1}, "version": 0}, format="json"),
        client.post(f"{base}/submit/", HTTP_IDEMPOTENCY_KEY="k"),
        client.post(f"{base}/responses/0/regrade-requests/", {"reason": "x"}, format="json"),
    ]
    assert [reply.status_code for reply in replies] == [404] * len(replies)
    assert all(str(attempt.pk) not in r.content.decode() for r in replies)
    browser = Client()
    browser.force_login(other)
    assert browser.get(f"/attempts/{attempt.pk}/").status_code == 404
    assert browser.get(f"/attempts/{attempt.pk}/result/").status_code == 404
    attempt.refresh_from_db()
    assert attempt.status == AttemptStatus.OPEN
    assert attempt.responses.get(position=0).version == 0
    assert client.get("/api/attempts/").json()["results"] == []


def test_an_examiner_of_the_course_reads_an_attempt_but_cannot_answer_or_submit_it(
    staff: Staff,
) -> None:
    attempt = _attempt_of(staff)
    client = api_as(staff.examiner)
    base = f"/api/attempts/{attempt.pk}"
    assert client.get(f"{base}/").status_code == 200
    body = {"answer": {"choice": 1}, "version": 0}
    assert client.put(f"{base}/responses/0/", body, format="json").status_code == 404
    assert client.post(f"{base}/submit/").status_code == 404
    attempt.refresh_from_db()
    assert attempt.status == AttemptStatus.OPEN


SIX_CHOICES = {
    **SINGLE,
    "choices": [{"text": "3", "correct": True}, *({"text": str(n)} for n in (1, 2, 4, 5, 6))],
}


def test_shuffled_choices_do_not_give_away_the_authors_order_by_their_ids() -> None:
    """Authors often list the correct choice first; a shuffled question's choice ids must
    not be the author's indexes, or picking id 0 would be right however the page shuffles."""
    staff, _ = staffed_quiz(SIX_CHOICES)
    staff.quiz.shuffle_choices = True
    staff.quiz.release_policy = ReleasePolicy.IMMEDIATELY
    staff.quiz.save()
    client = api_as(staff.student)
    attempt = client.post(f"/api/quizzes/{staff.quiz.pk}/attempts/", {}, format="json").json()
    [question] = [r["question"] for r in attempt["responses"]]
    assert [c["id"] for c in question["choices"]] == list(range(6))  # places on the page
    right = next(c["id"] for c in question["choices"] if c["text"] == "3")
    url = f"/api/attempts/{attempt['id']}/responses/0/"
    saved = client.put(url, {"answer": {"choice": right}, "version": 0}, format="json")
    assert saved.status_code == 200, saved.content
    reread = client.get(f"/api/attempts/{attempt['id']}/").json()["responses"][0]
    assert reread["answer"] == {"choice": right}
    browser = Client()
    browser.force_login(staff.student)
    page = browser.get(f"/attempts/{attempt['id']}/").content.decode()
    assert re.search(rf'value="{right}"\s+aria-label="3"\s+checked', page)
    result = client.post(f"/api/attempts/{attempt['id']}/submit/").json()
    assert result["responses"][0]["score"] == 1.0

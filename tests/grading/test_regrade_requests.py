"""Students ask for a regrade of a released answer; examiners accept or reject."""

from typing import Any

import pytest
from django.utils import timezone

from grading.models import Attempt, Response, ResponseStatus
from grading.models.marking import Mark, ScoreChange, ScoreSource
from quizbank.models import ReleasePolicy
from tests.grading.content import NUMERIC, VIVA
from tests.grading.factories import Staff, api_as, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def graded() -> tuple[Staff, Attempt]:
    staff, _ = staffed_quiz(NUMERIC, points="4")
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    return staff, submitted_attempt(staff.quiz, staff.student, {0: {"value": 12}})


def _ask(staff: Staff, attempt: Attempt, reason: str = "I rounded as told") -> Any:
    url = f"/api/attempts/{attempt.pk}/responses/0/regrade-requests/"
    return api_as(staff.student).post(url, {"reason": reason}, format="json")


def test_a_request_waits_for_the_release(graded: tuple[Staff, Attempt]) -> None:
    staff, attempt = graded
    refused = _ask(staff, attempt)
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "regrade_request_not_allowed"


def test_an_accepted_request_changes_the_score_and_logs_it(graded: tuple[Staff, Attempt]) -> None:
    staff, attempt = graded
    staff.quiz.released_at = timezone.now()
    staff.quiz.save()
    made = _ask(staff, attempt)
    assert made.status_code == 201, made.json()
    assert _ask(staff, attempt).json()["error"]["code"] == "regrade_request_not_allowed"
    listed = api_as(staff.examiner).get("/api/regrade-requests/", {"status": "open"}).json()
    assert [row["id"] for row in listed["results"]] == [made.json()["id"]]
    body = {"decision": "accept", "reply": "Fair: 12 was accepted.", "points": "3"}
    url = f"/api/regrade-requests/{made.json()['id']}/answer/"
    answered = api_as(staff.examiner).post(url, body, format="json").json()
    assert (answered["status"], answered["score_before"], answered["score_after"]) == (
        "accepted",
        0.0,
        0.75,
    )
    attempt.refresh_from_db()
    assert float(attempt.score or 0) == pytest.approx(3.0)
    change = ScoreChange.objects.get(source=ScoreSource.REGRADE_REQUEST)
    assert (change.before, change.after, change.actor) == (0.0, 0.75, staff.examiner)
    again = api_as(staff.examiner).post(url, body, format="json")
    assert again.json()["error"]["code"] == "regrade_request_answered"


def test_a_rejection_keeps_the_score_and_the_student_sees_the_reply(
    graded: tuple[Staff, Attempt],
) -> None:
    staff, attempt = graded
    staff.quiz.released_at = timezone.now()
    staff.quiz.save()
    made = _ask(staff, attempt).json()
    url = f"/api/regrade-requests/{made['id']}/answer/"
    body = {"decision": "reject", "reply": "11 is the only answer."}
    assert api_as(staff.student).post(url, body, format="json").status_code == 403
    assert api_as(staff.outsider).post(url, body, format="json").status_code == 404
    assert api_as(staff.examiner).post(url, body, format="json").status_code == 200
    mine = api_as(staff.student).get("/api/regrade-requests/").json()["results"]
    assert (mine[0]["status"], mine[0]["reply"]) == ("rejected", "11 is the only answer.")
    assert api_as(staff.outsider).get("/api/regrade-requests/").json()["results"] == []
    assert not ScoreChange.objects.exists()


def test_accepting_without_points_says_which_field(graded: tuple[Staff, Attempt]) -> None:
    staff, attempt = graded
    staff.quiz.released_at = timezone.now()
    staff.quiz.save()
    made = _ask(staff, attempt).json()
    url = f"/api/regrade-requests/{made['id']}/answer/"
    reply = api_as(staff.examiner).post(url, {"decision": "accept", "reply": "ok"}, format="json")
    assert reply.status_code == 400
    assert "points" in reply.json()["error"]["fields"]


@pytest.fixture
def released_viva() -> tuple[Staff, Attempt]:
    """A viva answer (4 points) marked 1 of 2 rubric points by the examiner, released."""
    staff, _ = staffed_quiz(VIVA, points="4")
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "It adds up."}})
    viva = attempt.responses.get(position=0)
    marks = f"/api/marking/responses/{viva.pk}/marks/"
    assert api_as(staff.examiner).post(marks, {"levels": [1]}, format="json").status_code == 201
    assert api_as(staff.examiner).post(f"/api/quizzes/{staff.quiz.pk}/release/").status_code == 200
    return staff, attempt


def _accept(staff: Staff, request_id: int, points: str) -> Any:
    url = f"/api/regrade-requests/{request_id}/answer/"
    body = {"decision": "accept", "reply": "Fair.", "points": points}
    return api_as(staff.examiner).post(url, body, format="json")


def test_a_viva_answer_takes_new_points_through_its_mark_not_past_it(
    released_viva: tuple[Staff, Attempt],
) -> None:
    # Its score follows its marks: points set past them were undone by the next mark edit.
    staff, attempt = released_viva
    made = _ask(staff, attempt).json()
    refused = _accept(staff, made["id"], "4")
    assert refused.status_code == 409, refused.json()
    assert refused.json()["error"]["code"] == "regrade_request_not_allowed"
    assert "mark" in refused.json()["error"]["message"]
    assert Response.objects.get(attempt=attempt).score == 0.5
    assert not ScoreChange.objects.filter(source=ScoreSource.REGRADE_REQUEST).exists()
    mark = Mark.objects.get(response__attempt=attempt)
    body = {"levels": [2], "reason": "Regrade request: the mechanism is there."}
    changed = api_as(staff.examiner).put(f"/api/marking/marks/{mark.pk}/", body, format="json")
    assert changed.status_code == 200, changed.json()
    accepted = _accept(staff, made["id"], "4")
    assert accepted.status_code == 200, accepted.json()
    assert (accepted.json()["status"], accepted.json()["score_after"]) == ("accepted", 1.0)


def test_an_answer_no_longer_final_takes_no_new_points(graded: tuple[Staff, Attempt]) -> None:
    staff, attempt = graded
    staff.quiz.released_at = timezone.now()
    staff.quiz.save()
    made = _ask(staff, attempt).json()
    # Sent back to its examiners (a regrade run, a second mark) before the answer came.
    Response.objects.filter(attempt=attempt).update(status=ResponseStatus.NEEDS_MARKING, score=None)
    refused = _accept(staff, made["id"], "3")
    assert refused.status_code == 409, refused.json()
    assert Response.objects.get(attempt=attempt).score is None

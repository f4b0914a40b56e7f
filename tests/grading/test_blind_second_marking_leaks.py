"""Blind second marking: a second marker sees no trace of the first mark until their own is
saved, even when the first mark was already released."""

from typing import Any

import pytest
from django.test import Client

from grading.models import Attempt, Response
from quizbank.models import ReleasePolicy
from tests.grading.content import SINGLE, VIVA
from tests.grading.factories import Staff, api_as, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db

# A first mark of 1 of 4 levels' points: a score no other path would produce by chance.
FIRST_COMMENT = "first marker's private remark"


@pytest.fixture
def released_then_second() -> tuple[Staff, Attempt, Response]:
    """The viva marked by the first examiner, released, then sent for a blind second mark."""
    staff, _ = staffed_quiz(SINGLE, VIVA, points="4")
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "t"}})
    viva = attempt.responses.get(position=1)
    marked = api_as(staff.examiner).post(
        f"/api/marking/responses/{viva.pk}/marks/",
        {"levels": [1], "comment": FIRST_COMMENT},
        format="json",
    )
    assert marked.status_code == 201, marked.content
    release = api_as(staff.examiner).post(f"/api/quizzes/{staff.quiz.pk}/release/")
    assert release.status_code == 200
    second = api_as(staff.examiner).post(f"/api/marking/responses/{viva.pk}/second-mark/")
    assert second.json() == {"status": "awaiting_second"}
    return staff, attempt, viva


def _first_score(viva: Response) -> float:
    return float(viva.marks.get().score)


def _leaks(content: bytes, viva: Response) -> list[str]:
    text = content.decode()
    found = [FIRST_COMMENT] if FIRST_COMMENT in text else []
    score = _first_score(viva)
    return found + [s for s in (repr(score), f"{score:.2f}") if s in text]


def test_the_marking_view_hides_the_released_first_mark(released_then_second: Any) -> None:
    staff, _, viva = released_then_second
    view = api_as(staff.second).get(f"/api/marking/responses/{viva.pk}/")
    body = view.json()
    assert body["marks_hidden"] is True
    assert body["marks"] == []
    assert body["score"] is None
    assert _leaks(view.content, viva) == []


def test_the_marking_page_hides_the_released_first_mark(released_then_second: Any) -> None:
    staff, _, viva = released_then_second
    client = Client()
    client.force_login(staff.second)
    page = client.get(f"/examiner/marking/{viva.pk}/")
    assert page.status_code == 200
    assert _leaks(page.content, viva) == []


def test_the_history_hides_the_released_first_mark(released_then_second: Any) -> None:
    staff, _, viva = released_then_second
    history = api_as(staff.second).get(f"/api/marking/responses/{viva.pk}/history/")
    assert history.json() == {"mark_changes": [], "score_changes": []}


def test_the_queue_row_hides_the_released_first_mark(released_then_second: Any) -> None:
    staff, _, viva = released_then_second
    queue = api_as(staff.second).get("/api/marking/queue/", {"quiz": staff.quiz.pk})
    [row] = [r for r in queue.json()["results"] if r["id"] == viva.pk]
    assert row["score"] is None
    assert _leaks(queue.content, viva) == []


def test_the_student_is_still_told_their_released_mark_is_being_looked_at_again(
    released_then_second: Any,
) -> None:
    staff, attempt, viva = released_then_second
    body = api_as(staff.student).get(f"/api/attempts/{attempt.pk}/result/").json()
    [shown] = [q for q in body["questions"] if q["position"] == 1]
    assert shown["previous_score"] == _first_score(viva)


def test_the_first_marker_still_sees_their_own_mark_and_the_history(
    released_then_second: Any,
) -> None:
    staff, _, viva = released_then_second
    view = api_as(staff.examiner).get(f"/api/marking/responses/{viva.pk}/").json()
    assert [m["comment"] for m in view["marks"]] == [FIRST_COMMENT]
    history = api_as(staff.examiner).get(f"/api/marking/responses/{viva.pk}/history/").json()
    assert len(history["score_changes"]) == 2


def test_the_second_marker_sees_everything_once_their_mark_is_saved(
    released_then_second: Any,
) -> None:
    staff, attempt, viva = released_then_second
    first = _first_score(viva)
    api_as(staff.second).post(
        f"/api/marking/responses/{viva.pk}/marks/", {"levels": [1]}, format="json"
    )
    view = api_as(staff.second).get(f"/api/marking/responses/{viva.pk}/").json()
    assert FIRST_COMMENT in [m["comment"] for m in view["marks"]]
    result = api_as(staff.second).get(f"/api/attempts/{attempt.pk}/result/").json()
    [shown] = [q for q in result["questions"] if q["position"] == 1]
    assert shown["score"] == first  # both marks agree


@pytest.mark.parametrize("suffix", ["", "result/"])
def test_the_attempt_endpoints_hide_the_released_first_mark(
    released_then_second: Any, suffix: str
) -> None:
    staff, attempt, viva = released_then_second
    reply = api_as(staff.second).get(f"/api/attempts/{attempt.pk}/{suffix}")
    assert reply.status_code == 200
    body = reply.json()
    [shown] = [r for r in body.get("responses", body.get("questions", [])) if r["position"] == 1]
    assert shown["score"] is None
    assert shown["previous_score"] is None
    assert shown["previous_points_awarded"] is None
    assert not shown["feedback"]
    assert FIRST_COMMENT not in reply.content.decode()


def test_an_answered_regrade_request_hides_the_released_first_mark() -> None:
    staff, _ = staffed_quiz(SINGLE, VIVA, points="4")
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "t"}})
    viva = attempt.responses.get(position=1)
    url = f"/api/marking/responses/{viva.pk}/"
    api_as(staff.examiner).post(f"{url}marks/", {"levels": [1]}, format="json")
    asked = api_as(staff.student).post(
        f"/api/attempts/{attempt.pk}/responses/1/regrade-requests/", {"reason": "look again"}
    )
    assert asked.status_code == 201, asked.content
    answer = f"/api/regrade-requests/{asked.json()['id']}/answer/"
    api_as(staff.moderator).post(answer, {"decision": "reject", "reply": "no"})
    assert api_as(staff.moderator).get("/api/regrade-requests/").json()["results"][0][
        "score_before"
    ] == _first_score(viva)
    api_as(staff.examiner).post(f"{url}second-mark/")

    [row] = api_as(staff.second).get("/api/regrade-requests/").json()["results"]
    assert (row["score_before"], row["score_after"]) == (None, None)
    [own] = api_as(staff.student).get("/api/regrade-requests/").json()["results"]
    assert own["score_before"] == _first_score(viva)

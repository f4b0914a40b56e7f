"""Release is refused while answers are not final, unless an override names each of them;
every release is logged, and a released answer that is not final shows as pending."""

from typing import Any

import pytest
from rest_framework.test import APIClient

from grading.models import Attempt, Response
from grading.models.marking import QuizMarkingPolicy
from grading.models.release import QuizRelease
from quizbank.models import ReleasePolicy
from tests.grading.content import SINGLE, VIVA
from tests.grading.factories import Staff, api_as, member, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff() -> Staff:
    """A manually released quiz of a choice question and a viva (4 points each)."""
    made, _ = staffed_quiz(SINGLE, VIVA, points="4")
    made.quiz.release_policy = ReleasePolicy.MANUAL
    made.quiz.save()
    return made


def _take(staff: Staff, student: Any = None) -> Attempt:
    student = student or staff.student
    return submitted_attempt(staff.quiz, student, {0: {"choice": 0}, 1: {"text": "it sums"}})


def _viva(attempt: Attempt) -> Response:
    return attempt.responses.get(position=1)


def _release(staff: Staff, body: Any = None) -> Any:
    return api_as(staff.examiner).post(
        f"/api/quizzes/{staff.quiz.pk}/release/", body, format="json"
    )


def _mark(staff: Staff, answer: Response, levels: list[int], marker: Any = None) -> None:
    client = api_as(marker or staff.examiner)
    reply = client.post(
        f"/api/marking/responses/{answer.pk}/marks/", {"levels": levels}, format="json"
    )
    assert reply.status_code == 201, reply.content


def test_a_release_with_an_unmarked_answer_is_refused_naming_it(staff: Staff) -> None:
    attempt = _take(staff)
    reply = _release(staff)
    assert reply.status_code == 409
    error = reply.json()["error"]
    assert error["code"] == "release_blocked"
    assert error["message"].startswith("Release would show 1 answer that is not final yet")
    viva = _viva(attempt)
    assert error["fields"] == {
        "responses": [str(viva.pk)],
        "unmarked": [f"response {viva.pk}: attempt {attempt.pk}, position 1"],
    }
    staff.quiz.refresh_from_db()
    attempt.refresh_from_db()
    assert (staff.quiz.released_at, attempt.released_at) == (None, None)
    assert not QuizRelease.objects.exists()
    student = api_as(staff.student).get(f"/api/attempts/{attempt.pk}/result/").json()
    assert (student["results_visible"], student["score"]) == (False, None)


def test_a_flagged_answer_blocks_the_release_too(staff: Staff) -> None:
    QuizMarkingPolicy.objects.create(
        quiz=staff.quiz, double_marking=True, disagreement_threshold=0.2
    )
    viva = _viva(_take(staff))
    _mark(staff, viva, [2])
    awaiting = _release(staff).json()["error"]["fields"]
    assert list(awaiting) == ["responses", "awaiting_second_mark"]
    _mark(staff, viva, [0], marker=staff.second)
    flagged = _release(staff).json()["error"]["fields"]
    assert list(flagged) == ["responses", "flagged"]


def test_the_release_state_lists_what_is_not_final(staff: Staff) -> None:
    attempt = _take(staff)
    body = api_as(staff.examiner).get(f"/api/quizzes/{staff.quiz.pk}/release/").json()
    assert body["not_final"] == [
        {
            "response": _viva(attempt).pk,
            "attempt": attempt.pk,
            "position": 1,
            "attempt_number": 1,
            "student": staff.student.username,
            "state": "unmarked",
        }
    ]
    assert (body["released_at"], body["history"]) == (None, [])


def test_an_override_must_name_every_answer_and_give_a_reason(staff: Staff) -> None:
    first, second = _take(staff), _take(staff, member(staff.course, "student"))
    named = {"responses": [_viva(first).pk], "reason": "board meets today"}
    missing = _release(staff, {"override": named})
    assert missing.status_code == 409
    assert missing.json()["error"]["fields"]["responses"] == [str(_viva(second).pk)]
    both = [_viva(first).pk, _viva(second).pk]
    blank = _release(staff, {"override": {"responses": both, "reason": ""}})
    assert blank.status_code == 400
    assert "override.reason" in blank.json()["error"]["fields"]
    assert not QuizRelease.objects.exists()


def test_an_overridden_release_is_logged_and_shows_the_answer_as_pending(staff: Staff) -> None:
    attempt = _take(staff)
    viva = _viva(attempt)
    override = {"responses": [viva.pk], "reason": "the viva marker is ill"}
    reply = _release(staff, {"override": override})
    assert reply.status_code == 200, reply.content
    log = reply.json()["release"]
    assert (log["action"], log["actor"], log["attempts"]) == (
        "release",
        staff.examiner.username,
        [attempt.pk],
    )
    assert log["overridden"] == [
        {"response": viva.pk, "attempt": attempt.pk, "position": 1, "state": "unmarked"}
    ]
    assert log["reason"] == "the viva marker is ill"

    shown = api_as(staff.student).get(f"/api/attempts/{attempt.pk}/result/").json()
    assert shown["results_visible"] is True
    # No provisional total: the student sees the choice's points and a pending viva.
    assert (shown["pending"], shown["score"], shown["final_score"]) == (True, None, None)
    choice, answer = shown["questions"]
    assert (choice["points_awarded"], choice["pending"]) == ("4.000", False)
    assert (answer["pending"], answer["score"], answer["points_awarded"]) == (True, None, None)

    _mark(staff, viva, [2])
    marked = api_as(staff.student).get(f"/api/attempts/{attempt.pk}/result/").json()
    assert (marked["pending"], marked["score"]) == (False, "8.000")


def test_a_release_after_marking_needs_no_override_and_can_be_withdrawn(staff: Staff) -> None:
    attempt = _take(staff)
    _mark(staff, _viva(attempt), [1])
    released = _release(staff)
    assert released.status_code == 200
    assert released.json()["release"]["overridden"] == []
    student = api_as(staff.student)
    assert student.get(f"/api/attempts/{attempt.pk}/result/").json()["score"] == "6.000"

    url = f"/api/quizzes/{staff.quiz.pk}/release/"
    withdrawn = api_as(staff.examiner).delete(url)
    assert (withdrawn.status_code, withdrawn.json()["released_at"]) == (200, None)
    assert student.get(f"/api/attempts/{attempt.pk}/result/").json()["results_visible"] is False
    history = api_as(staff.examiner).get(url).json()["history"]
    assert [(row["action"], row["attempts"]) for row in history] == [
        ("release", [attempt.pk]),
        ("withdraw", [attempt.pk]),
    ]


@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_only_examiners_of_the_course_see_or_change_a_release(staff: Staff, method: str) -> None:
    url = f"/api/quizzes/{staff.quiz.pk}/release/"
    assert getattr(api_as(staff.student), method)(url).status_code == 403
    assert getattr(api_as(staff.outsider), method)(url).status_code == 404
    assert getattr(APIClient(), method)(url).status_code in (401, 403)
    assert not QuizRelease.objects.exists()


def test_releasing_again_with_nothing_new_logs_and_sends_nothing(staff: Staff) -> None:
    attempt = _take(staff)
    _mark(staff, _viva(attempt), [1])
    first = _release(staff)
    assert first.status_code == 200
    again = _release(staff, {"override": {"responses": [], "reason": "a second click"}})
    assert again.status_code == 200
    assert again.json()["release"] == first.json()["release"]
    assert QuizRelease.objects.filter(quiz=staff.quiz).count() == 1
    later = _take(staff, member(staff.quiz.course, "student"))
    _mark(staff, _viva(later), [2])
    assert _release(staff).json()["release"]["attempts"] == [later.pk]
    assert QuizRelease.objects.filter(quiz=staff.quiz).count() == 2


def test_withdrawing_again_with_nothing_released_logs_nothing(staff: Staff) -> None:
    # Two examiners (or a double click) withdrawing at once: one withdrawal stands.
    attempt = _take(staff)
    _mark(staff, _viva(attempt), [1])
    assert _release(staff).status_code == 200
    url = f"/api/quizzes/{staff.quiz.pk}/release/"
    first = api_as(staff.examiner).delete(url)
    again = api_as(staff.second).delete(url)
    assert (again.status_code, again.json()["released_at"]) == (200, None)
    assert again.json()["release"] == first.json()["release"]
    history = api_as(staff.examiner).get(url).json()["history"]
    assert [row["action"] for row in history] == ["release", "withdraw"]


def test_an_override_naming_an_impossible_id_is_a_400(staff: Staff) -> None:
    reply = _release(staff, {"override": {"responses": [2**70], "reason": "x"}})
    assert reply.status_code == 400
    assert "override" in str(reply.json()["error"]["fields"])

"""Marks the API refuses, each with its code, message and fields, and nothing saved."""

from typing import Any

import pytest
from django.contrib.auth.models import User

from grading.models import Response, ResponseStatus
from grading.models.marking import Mark, MarkChange, QuizMarkingPolicy, ScoreChange
from quizbank.models import Role
from tests.grading.content import VIVA_TWO_CRITERIA
from tests.grading.factories import Staff, api_as, member, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup() -> tuple[Staff, Response]:
    staff, _ = staffed_quiz(VIVA_TWO_CRITERIA)
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "It sums."}})
    return staff, attempt.responses.get()


def _mark(user: User, response: Response, levels: list[int], **extra: Any) -> Any:
    body = {"levels": levels, **extra}
    return api_as(user).post(f"/api/marking/responses/{response.pk}/marks/", body, format="json")


def _moderate(user: User, response: Response, levels: list[int]) -> Any:
    url = f"/api/marking/responses/{response.pk}/moderation/"
    return api_as(user).post(url, {"levels": levels}, format="json")


def _error(reply: Any, status: int) -> dict[str, Any]:
    assert reply.status_code == status, reply.content
    error: dict[str, Any] = reply.json()["error"]
    return error


@pytest.mark.parametrize(
    ("levels", "adjustment", "field"),
    [([2, 2], 1, "6 + 1 is out of range"), ([1, 0], -1.5, "1 + -1.5 is out of range")],
)
def test_an_adjustment_outside_zero_to_the_rubric_maximum_is_refused_and_nothing_saved(
    setup: tuple[Staff, Response], levels: list[int], adjustment: float, field: str
) -> None:
    staff, response = setup
    reply = _mark(staff.examiner, response, levels, adjustment=adjustment, adjustment_reason="x")
    assert _error(reply, 400) == {
        "code": "invalid_mark",
        "message": "Rubric points plus adjustment must lie between 0 and 6.",
        "fields": {"adjustment": [field]},
    }
    assert not Mark.objects.exists()
    assert not MarkChange.objects.exists()
    response.refresh_from_db()
    assert (response.status, response.score) == (ResponseStatus.NEEDS_MARKING, None)


def test_an_adjustment_without_a_reason_is_refused_naming_the_reason_field(
    setup: tuple[Staff, Response],
) -> None:
    staff, response = setup
    reply = _mark(staff.examiner, response, [1, 1], adjustment=1, adjustment_reason="  ")
    assert _error(reply, 400) == {
        "code": "invalid_mark",
        "message": "An adjustment needs a reason.",
        "fields": {"adjustment_reason": ["required"]},
    }
    assert not Mark.objects.exists()


def test_an_examiner_marks_an_answer_once_and_an_answer_takes_two_marks(
    setup: tuple[Staff, Response],
) -> None:
    staff, response = setup
    QuizMarkingPolicy.objects.create(quiz=staff.quiz, double_marking=True)
    assert _mark(staff.examiner, response, [2, 2]).status_code == 201
    assert _error(_mark(staff.examiner, response, [1, 1]), 409) == {
        "code": "already_marked",
        "message": "You already marked this answer; change your mark instead.",
        "fields": {},
    }
    assert _mark(staff.second, response, [2, 2]).status_code == 201
    assert _error(_mark(staff.moderator, response, [1, 1]), 409)["message"] == (
        "This answer already has two marks; a moderator decides now."
    )


def test_only_the_marker_may_change_a_mark_and_is_told_why(setup: tuple[Staff, Response]) -> None:
    staff, response = setup
    mark = _mark(staff.examiner, response, [1, 1]).json()
    reply = api_as(staff.second).put(
        f"/api/marking/marks/{mark['id']}/", {"levels": [0, 0]}, format="json"
    )
    assert _error(reply, 403)["message"] == "Only the examiner who gave a mark may change it."


def test_only_a_flagged_answer_can_be_moderated(setup: tuple[Staff, Response]) -> None:
    staff, response = setup
    for _ in ("unmarked", "marked"):
        assert _error(_moderate(staff.moderator, response, [1, 1]), 409) == {
            "code": "not_flagged",
            "message": "Only answers flagged for moderation can be moderated.",
            "fields": {},
        }
        _mark(staff.examiner, response, [1, 1])


def test_a_moderator_must_not_have_marked_the_answer_but_may_have_marked_others(
    setup: tuple[Staff, Response],
) -> None:
    staff, response = setup
    QuizMarkingPolicy.objects.create(quiz=staff.quiz, double_marking=True)
    classmate = member(staff.course, Role.STUDENT)
    other = submitted_attempt(staff.quiz, classmate, {0: {"text": "Adds."}}).responses.get()
    assert _mark(staff.moderator, other, [1, 1]).status_code == 201
    _mark(staff.examiner, response, [2, 2])
    _mark(staff.second, response, [0, 1])
    assert _error(_moderate(staff.examiner, response, [1, 1]), 409)["message"] == (
        "A moderator must not be one of the answer's markers."
    )
    assert _moderate(staff.moderator, response, [1, 2]).status_code == 201
    change = ScoreChange.objects.get(response=response)
    assert change.after == pytest.approx(5 / 6)
    assert (change.actor, change.reason) == (staff.moderator, "marking: moderated")

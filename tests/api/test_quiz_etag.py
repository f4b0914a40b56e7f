"""Two authors (or two scripts) editing one quiz over the API: GET gives the quiz's ETag,
and a PATCH with If-Match is refused with 412 once someone else has changed the quiz."""

from typing import Any

import pytest

from quizbank.models import Quiz, Role
from tests.grading.content import NUMERIC, SINGLE
from tests.grading.factories import add_slots, api_as, member, new_quiz, question

pytestmark = pytest.mark.django_db


@pytest.fixture
def quiz() -> Quiz:
    quiz = new_quiz(title="Week 1")
    add_slots(quiz, question(quiz.course, SINGLE))
    return quiz


def _etag(quiz: Quiz, author: Any) -> str:
    reply = api_as(author).get(f"/api/quizzes/{quiz.pk}/")
    assert reply.status_code == 200
    return str(reply["ETag"])


def test_an_edit_from_a_stale_read_is_refused_and_changes_nothing(quiz: Quiz) -> None:
    first, second = member(quiz.course, Role.AUTHOR), member(quiz.course, Role.AUTHOR)
    seen = _etag(quiz, first)
    url = f"/api/quizzes/{quiz.pk}/"
    saved = api_as(second).patch(url, {"title": "Week 1: tensors"}, format="json")
    assert saved.status_code == 200
    assert saved["ETag"] != seen
    stale = api_as(first).patch(url, {"title": "Week one"}, format="json", HTTP_IF_MATCH=seen)
    assert stale.status_code == 412, stale.content
    assert stale.json()["error"]["code"] == "quiz_changed"
    quiz.refresh_from_db()
    assert quiz.title == "Week 1: tensors"
    fresh = api_as(first).patch(
        url, {"title": "Week one"}, format="json", HTTP_IF_MATCH=saved["ETag"]
    )
    assert fresh.status_code == 200, fresh.content
    quiz.refresh_from_db()
    assert quiz.title == "Week one"


def test_a_change_of_slots_alone_changes_the_etag(quiz: Quiz) -> None:
    author = member(quiz.course, Role.AUTHOR)
    seen = _etag(quiz, author)
    add_slots(quiz, question(quiz.course, NUMERIC))
    assert _etag(quiz, author) != seen
    reply = api_as(author).patch(
        f"/api/quizzes/{quiz.pk}/", {"title": "x"}, format="json", HTTP_IF_MATCH=seen
    )
    assert reply.status_code == 412


@pytest.mark.parametrize("header", ["*", 'W/"{etag}"', '"nope", "{etag}"'])
def test_if_match_takes_a_weak_tag_a_list_or_any(quiz: Quiz, header: str) -> None:
    author = member(quiz.course, Role.AUTHOR)
    etag = _etag(quiz, author).strip('"')
    reply = api_as(author).patch(
        f"/api/quizzes/{quiz.pk}/",
        {"title": "Renamed"},
        format="json",
        HTTP_IF_MATCH=header.format(etag=etag),
    )
    assert reply.status_code == 200, reply.content


def test_without_if_match_the_change_is_applied(quiz: Quiz) -> None:
    author = member(quiz.course, Role.AUTHOR)
    reply = api_as(author).patch(f"/api/quizzes/{quiz.pk}/", {"title": "x"}, format="json")
    assert reply.status_code == 200


def test_students_see_no_etag(quiz: Quiz) -> None:
    student = member(quiz.course, Role.STUDENT)
    reply = api_as(student).get(f"/api/quizzes/{quiz.pk}/")
    assert reply.status_code == 200
    assert "ETag" not in reply

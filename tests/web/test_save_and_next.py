"""Save and next opens an answer still waiting for this examiner, wrapping round the queue;
it says the queue is empty only when it is."""

import pytest
from django.contrib.auth.models import User

from tests.grading.content import VIVA
from tests.grading.factories import Staff, browser_as, new_user, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


def _answers(staff: Staff, count: int) -> list[int]:
    made = []
    for _ in range(count):
        attempt = submitted_attempt(staff.quiz, new_user(), {0: {"text": "It adds."}})
        made.append(attempt.responses.get(position=0).pk)
    return made


def _save_and_next(examiner: User, answer: int, *, second: bool = False) -> str:
    body = {"level-0": "1", "next": ""}
    if second:
        body["second"] = ""
    reply = browser_as(examiner).post(f"/examiner/marking/{answer}/", body)
    assert reply.status_code == 302
    return str(reply["Location"])


def test_the_last_answer_leads_back_to_one_skipped_before_it() -> None:
    # Marking the last answer first said "No answer is left to mark in your queue" while the
    # earlier ones were still unmarked.
    staff, _ = staffed_quiz(VIVA)
    first, last = _answers(staff, 2)

    location = _save_and_next(staff.examiner, last)
    page = browser_as(staff.examiner)

    assert location == f"/examiner/marking/{first}/"
    assert "No answer is left" not in page.get(location).text
    assert _save_and_next(staff.examiner, first) == f"/examiner/marking/{first}/"


def test_an_answer_this_examiner_marked_is_not_offered_again_while_it_waits_for_another() -> None:
    staff, _ = staffed_quiz(VIVA)
    waiting, other = _answers(staff, 2)
    _save_and_next(staff.examiner, waiting, second=True)  # now waits for a second marker

    assert _save_and_next(staff.examiner, other) == f"/examiner/marking/{other}/"
    assert _save_and_next(staff.second, other) == f"/examiner/marking/{waiting}/"

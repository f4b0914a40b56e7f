"""Asking for a blind second mark while giving one's own mark on the marking page: the first
mark never counts as the answer's final score, so a student whose result is released as soon
as it is graded is never told of a mark that was never theirs."""

import pytest

from grading.models.marking import ScoreChange
from tests.grading.content import VIVA
from tests.grading.factories import browser_as, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


def test_a_mark_saved_with_a_second_mark_request_is_never_the_final_score() -> None:
    # The page saved the mark (final for a moment: a score change to 1.0) and only then asked
    # for the second mark (back to none), so once the answer was settled the result page said
    # "it was 6 points before" of a mark the student was never meant to see.
    staff, _ = staffed_quiz(VIVA)
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "It adds."}})
    answer = attempt.responses.get(position=0).pk
    body = {"level-0": "2", "second": ""}

    reply = browser_as(staff.examiner).post(f"/examiner/marking/{answer}/", body)
    browser_as(staff.second).post(f"/examiner/marking/{answer}/", {"level-0": "2"})

    assert reply.status_code == 302
    changes = ScoreChange.objects.filter(response_id=answer)
    assert [(c.before, c.after) for c in changes] == [(None, 1.0)]
    result = browser_as(staff.student).get(f"/attempts/{attempt.pk}/result/").text
    assert "Mark updated" not in result


def test_a_refused_mark_leaves_no_second_mark_request_behind() -> None:
    staff, _ = staffed_quiz(VIVA)
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "It adds."}})
    answer = attempt.responses.get(position=0).pk
    body = {"level-0": "9", "second": ""}

    reply = browser_as(staff.examiner).post(f"/examiner/marking/{answer}/", body)
    browser_as(staff.examiner).post(f"/examiner/marking/{answer}/", {"level-0": "2"})

    assert reply.status_code == 200
    assert "Not saved" in reply.text
    changes = ScoreChange.objects.filter(response_id=answer)
    assert [(c.before, c.after) for c in changes] == [(None, 1.0)]


def test_the_second_marker_is_not_offered_a_second_mark_request() -> None:
    # Once a second mark is asked for (or the markers disagree and a moderator decides),
    # asking again changes nothing: the button is only offered while it would.
    staff, _ = staffed_quiz(VIVA)
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "It adds."}})
    answer = attempt.responses.get(position=0).pk
    page = f"/examiner/marking/{answer}/"
    assert "Ask for a blind second mark" in browser_as(staff.examiner).get(page).text

    browser_as(staff.examiner).post(page, {"level-0": "2", "second": ""})

    assert "Ask for a blind second mark" not in browser_as(staff.second).get(page).text
    assert "Ask for a blind second mark" not in browser_as(staff.examiner).get(page).text

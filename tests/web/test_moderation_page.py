"""A flagged answer's marking page names each marker's levels as the rubric does, and tells a
marker who already marked it what they may do, rather than inviting them to moderate."""

import pytest
from django.contrib.auth.models import User

from tests.grading.content import VIVA
from tests.grading.factories import Staff, browser_as, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


def _mark(examiner: User, answer: int, level: int, *, second: bool = False) -> None:
    body = {"level-0": str(level), "comment": "", "second" if second else "save": ""}
    assert browser_as(examiner).post(f"/examiner/marking/{answer}/", body).status_code == 302


def _flagged() -> tuple[Staff, int]:
    staff, _ = staffed_quiz(VIVA)
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "It adds."}})
    answer = attempt.responses.get(position=0).pk
    _mark(staff.examiner, answer, 0, second=True)
    _mark(staff.second, answer, 2)
    return staff, answer


def test_the_markers_levels_are_named_as_the_rubric_names_them() -> None:
    # They were the stored indexes ("levels 0", "levels 2") beside a rubric numbered from 1,
    # so "2" read as the second level, Partial, when it was the third, Full.
    staff, answer = _flagged()

    page = browser_as(staff.moderator).get(f"/examiner/marking/{answer}/").content.decode()

    assert "Moderate:" in page
    assert ": Missing (0) · 0 rubric points (0% of the question)</li>" in page
    assert ": Full (2) · 2 rubric points (100% of the question)</li>" in page
    assert "levels 0" not in page


def test_a_marker_of_a_flagged_answer_is_told_they_change_their_own_mark() -> None:
    staff, answer = _flagged()

    page = browser_as(staff.examiner).get(f"/examiner/marking/{answer}/").content.decode()

    assert "<h1>Mark: " in page
    assert "You marked it: you may change your own mark below" in page
    moderator = browser_as(staff.moderator).get(f"/examiner/marking/{answer}/").content.decode()
    assert "You marked it" not in moderator

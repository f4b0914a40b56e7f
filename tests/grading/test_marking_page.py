"""The marking page: answer beside rubric, save and next, refusals without a 500."""

import re

import pytest
from django.contrib.auth.models import User

from grading.models.marking import Mark, MarkChange
from tests.grading.content import VIVA
from tests.grading.factories import Staff, browser_as, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff() -> Staff:
    made, _ = staffed_quiz(VIVA)
    return made


def _answers(staff: Staff, count: int) -> list[int]:
    ids = []
    for _ in range(count):
        student = User.objects.create(username=f"s{User.objects.count()}")
        staff.course.memberships.create(user=student, role="student")
        attempt = submitted_attempt(staff.quiz, student, {0: {"text": "It adds."}})
        ids.append(attempt.responses.get(position=0).pk)
    return ids


def test_the_page_shows_answer_model_answer_and_every_level(staff: Staff) -> None:
    (first,) = _answers(staff, 1)
    page = browser_as(staff.examiner).get(f"/examiner/marking/{first}/")
    assert page.status_code == 200
    assert "It adds." in page.text
    assert VIVA["model_answer"][:20] in page.text
    assert "Not marked yet" in page.text  # as the queue says it
    assert "status: unmarked" not in page.text
    levels = sum(len(c["levels"]) for c in VIVA["rubric"])
    assert page.text.count('type="radio"') == levels


def test_each_heading_says_what_is_under_it_the_question_the_answer_or_the_model(
    staff: Staff,
) -> None:
    (first,) = _answers(staff, 1)
    shown = browser_as(staff.examiner).get(f"/examiner/marking/{first}/").text
    under = dict(re.findall(r'<h2 id="[^"]+">([^<]+)</h2>(.*?)</section>', shown, re.S))
    assert VIVA["prompt"] in under["The question"]
    assert "It adds." not in under["The question"]
    assert "It adds." in under["The student's answer"]
    assert VIVA["prompt"] not in under["The student's answer"]
    assert VIVA["model_answer"] not in under["The student's answer"]
    assert VIVA["model_answer"] in under["Model answer and guidance"]


def test_save_and_next_marks_and_moves_to_the_next_unmarked(staff: Staff) -> None:
    first, second = _answers(staff, 2)
    body = {f"level-{i}": "1" for i in range(len(VIVA["rubric"]))}
    reply = browser_as(staff.examiner).post(
        f"/examiner/marking/{first}/", {**body, "comment": "Good.", "next": ""}
    )
    assert reply.status_code == 302
    assert reply["Location"] == f"/examiner/marking/{second}/"
    mark = Mark.objects.get(response_id=first)
    assert mark.levels == [1] * len(VIVA["rubric"])
    assert mark.comment == "Good."


def test_changing_ones_mark_on_the_page_keeps_the_reason_in_the_log(staff: Staff) -> None:
    [answer] = _answers(staff, 1)
    page = browser_as(staff.examiner)
    url = f"/examiner/marking/{answer}/"
    levels = {f"level-{i}": "1" for i in range(len(VIVA["rubric"]))}
    page.post(url, {**levels, "comment": "Good."})
    assert 'name="reason"' in page.get(url).content.decode()
    higher = {f"level-{i}": "2" for i in range(len(VIVA["rubric"]))}
    page.post(url, {**higher, "comment": "Good.", "reason": "Missed the second example"})
    change = MarkChange.objects.filter(mark__response_id=answer).order_by("pk").last()
    assert change is not None
    assert change.reason == "Missed the second example"


def test_a_missing_or_bad_level_is_refused_with_a_message(staff: Staff) -> None:
    (first,) = _answers(staff, 1)
    for body in ({}, {"level-0": "x"}, {"level-0": "99999999"}):
        reply = browser_as(staff.examiner).post(f"/examiner/marking/{first}/", body, follow=True)
        assert reply.status_code == 200
        assert "Not saved:" in reply.text
    reply = browser_as(staff.examiner).post(f"/examiner/marking/{first}/", {}, follow=True)
    assert "Choose a level for criterion 1 (" in reply.text
    assert not Mark.objects.filter(response_id=first).exists()


def test_a_comment_longer_than_a_mark_keeps_is_refused_not_cut(staff: Staff) -> None:
    (first,) = _answers(staff, 1)
    levels = {f"level-{i}": "0" for i in range(len(VIVA["rubric"]))}
    page = browser_as(staff.examiner)
    url = f"/examiner/marking/{first}/"
    assert 'maxlength="10000"' in page.get(url).text
    reply = page.post(url, {**levels, "comment": "Typed feedback " + "x" * 10_000}, follow=True)
    assert "The comment is 10,015 characters long; 10,000 is the most a mark keeps." in reply.text
    assert not Mark.objects.filter(response_id=first).exists()
    # The refused form comes back as typed: the comment and every chosen level.
    assert ">Typed feedback xxx" in reply.text
    assert reply.text.count(" checked>") == len(VIVA["rubric"])
    page.post(url, {**levels, "comment": "x" * 10_000})
    assert len(Mark.objects.get(response_id=first).comment) == 10_000


def test_students_and_other_courses_examiners_cannot_open_it(staff: Staff) -> None:
    (first,) = _answers(staff, 1)
    assert browser_as(staff.student).get(f"/examiner/marking/{first}/").status_code in (403, 404)
    assert browser_as(staff.outsider).get(f"/examiner/marking/{first}/").status_code == 404


def _post_levels(user: User, answer: int, level: int, **extra: str) -> object:
    body = {f"level-{i}": str(level) for i in range(len(VIVA["rubric"]))}
    return browser_as(user).post(f"/examiner/marking/{answer}/", {**body, **extra})


def test_a_second_mark_is_asked_for_and_a_flagged_disagreement_moderated(staff: Staff) -> None:
    (answer,) = _answers(staff, 1)
    _post_levels(staff.examiner, answer, 0)
    browser_as(staff.examiner).post(f"/examiner/marking/{answer}/", {"second": ""})
    top = min(len(c["levels"]) for c in VIVA["rubric"]) - 1
    _post_levels(staff.second, answer, top)
    flagged = browser_as(staff.moderator).get(f"/examiner/marking/{answer}/")
    assert "Moderate:" in flagged.text
    _post_levels(staff.moderator, answer, 1)
    roles = sorted(Mark.objects.filter(response_id=answer).values_list("role", flat=True))
    assert roles == ["first", "moderator", "second"]
    assert "Moderate:" not in browser_as(staff.moderator).get(f"/examiner/marking/{answer}/").text


def test_the_message_says_what_was_done_and_when_the_queue_is_empty(staff: Staff) -> None:
    (only,) = _answers(staff, 1)
    page = browser_as(staff.examiner)
    body = {f"level-{i}": "1" for i in range(len(VIVA["rubric"]))}
    saved = page.post(f"/examiner/marking/{only}/", {**body, "next": ""}, follow=True)
    assert "Mark saved. No answer is left to mark in your queue." in saved.text
    asked = page.post(f"/examiner/marking/{only}/", {"second": ""}, follow=True)
    assert "A blind second mark is asked for" in asked.text
    assert "Mark saved." not in asked.text


def test_asking_for_a_second_mark_with_levels_chosen_saves_them_first(staff: Staff) -> None:
    """The examiner picked levels and pressed the second-mark button, not Save: the levels
    on the page are their mark, kept rather than dropped."""
    (answer,) = _answers(staff, 1)
    body = {f"level-{i}": "1" for i in range(len(VIVA["rubric"]))}
    asked = browser_as(staff.examiner).post(
        f"/examiner/marking/{answer}/", {**body, "second": ""}, follow=True
    )
    assert "Mark saved, and a blind second mark asked for" in asked.text
    [mark] = Mark.objects.filter(response_id=answer)
    assert (mark.marker, mark.levels) == (staff.examiner, [1] * len(VIVA["rubric"]))

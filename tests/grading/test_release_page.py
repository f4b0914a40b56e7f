"""The examiner's release page: lists what is not final, refuses, then releases."""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.timezone import localtime
from pytest_django import Settings

from grading.services.release import quiz_release_history
from quizbank.models import ReleasePolicy
from tests.grading.content import SINGLE, VIVA
from tests.grading.factories import Staff, api_as, browser_as, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff() -> Staff:
    made, _ = staffed_quiz(SINGLE, VIVA)
    made.quiz.release_policy = ReleasePolicy.MANUAL
    made.quiz.save()
    return made


def test_an_unmarked_viva_blocks_the_release_until_it_is_marked(staff: Staff) -> None:
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "x"}})
    url = reverse("grading-pages:quiz-release", args=[staff.quiz.pk])
    page = browser_as(staff.examiner)
    shown = page.get(url)
    assert shown.status_code == 200
    assert "Not final yet (1)" in shown.text
    assert "<td>Not marked yet · <a" in shown.text  # in words, not the API's "unmarked"
    refused = page.post(url, follow=True)
    assert "Not released:" in refused.text
    viva = attempt.responses.get(position=1)
    levels = [0] * len(viva.question_version.content["rubric"])
    api_as(staff.examiner).post(
        f"/api/marking/responses/{viva.pk}/marks/", {"levels": levels}, format="json"
    )
    released = page.post(url, follow=True)
    assert "Results of 1 attempt released: their students can see them now." in released.text
    result = api_as(staff.student).get(f"/api/attempts/{attempt.pk}/result/").json()
    assert result["score"] is not None
    again = page.post(url, follow=True)  # a second click: nothing new, and it says so
    assert "Nothing new to release: every submitted attempt" in again.text
    assert "released:" not in again.text


def test_only_the_course_examiners_see_the_page(staff: Staff) -> None:
    url = reverse("grading-pages:quiz-release", args=[staff.quiz.pk])
    assert browser_as(staff.student).get(url).status_code == 403
    assert browser_as(staff.outsider).get(url).status_code == 404
    assert Client().get(url).status_code == 302
    assert browser_as(staff.examiner).put(url).status_code == 405


def test_a_quiz_releasing_immediately_says_so_and_offers_no_release(staff: Staff) -> None:
    staff.quiz.release_policy = ReleasePolicy.IMMEDIATELY
    staff.quiz.save()
    submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "x"}})
    url = reverse("grading-pages:quiz-release", args=[staff.quiz.pk])
    shown = browser_as(staff.examiner).get(url).text
    assert "As soon as graded" in shown
    assert "not yet released" not in shown
    assert "Release results</button>" not in shown
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    assert "1 submitted attempt not yet released" in browser_as(staff.examiner).get(url).text


def test_release_anyway_names_the_listed_answers_and_needs_a_reason(staff: Staff) -> None:
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "x"}})
    viva = attempt.responses.get(position=1)
    url = reverse("grading-pages:quiz-release", args=[staff.quiz.pk])
    page = browser_as(staff.examiner)
    shown = page.get(url).text
    assert "Release anyway" in shown
    assert f'href="/examiner/marking/{viva.pk}/">mark it' in shown
    assert f'name="responses" value="{viva.pk}"' in shown
    blank = page.post(url, {"override": "1", "responses": [viva.pk], "reason": " "}, follow=True)
    assert "Not released: An override needs a reason." in blank.text
    unnamed = page.post(url, {"override": "1", "responses": ["x"], "reason": "Deadline"})
    assert unnamed.status_code == 200  # shown again, the reason as typed
    attempt.refresh_from_db()
    assert attempt.released_at is None
    body = {"override": "1", "responses": [viva.pk], "reason": "Grades due today"}
    released = page.post(url, body, follow=True)
    assert " released: their students can see them now." in released.text
    attempt.refresh_from_db()
    assert attempt.released_at is not None
    assert "(Grades due today)" in released.text  # the page's release log
    assert "Released while not final (1)" in released.text
    assert f'href="/examiner/marking/{viva.pk}/"' in released.text


def test_release_times_are_written_with_their_time_zone(staff: Staff, settings: Settings) -> None:
    settings.TIME_ZONE = "Asia/Tokyo"
    staff.quiz.slots.filter(position=1).delete()  # no viva to mark first
    submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}})
    url = reverse("grading-pages:quiz-release", args=[staff.quiz.pk])
    released = browser_as(staff.examiner).post(url, follow=True).text
    staff.quiz.refresh_from_db()
    assert staff.quiz.released_at is not None
    assert f"Last released {localtime(staff.quiz.released_at):%-d %b %Y, %H:%M} JST." in released
    logged = quiz_release_history(staff.quiz).get().created_at
    assert f"<li>{localtime(logged):%-d %b %Y, %H:%M} JST: " in released  # the release log


def test_release_anyway_sends_its_answers_in_one_field_however_many(staff: Staff) -> None:
    """One field per answer would stop at Django's 1,000-field limit with a bare 400."""
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "x"}})
    viva = attempt.responses.get(position=1)
    url = reverse("grading-pages:quiz-release", args=[staff.quiz.pk])
    page = browser_as(staff.examiner)
    assert page.get(url).text.count('name="responses"') == 1
    many = ",".join(str(viva.pk + n) for n in range(1, 1500))
    body = {"override": "1", "responses": f"{many}, {viva.pk},,x", "reason": "Due today"}
    released = page.post(url, body, follow=True)
    assert " released: their students can see them now." in released.text
    attempt.refresh_from_db()
    assert attempt.released_at is not None


def test_a_release_asks_before_students_see_their_results() -> None:
    # One click showed every student their scores, with no question asked.
    staff, _ = staffed_quiz(SINGLE)
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}})
    url = reverse("grading-pages:quiz-release", args=[staff.quiz.pk])

    shown = browser_as(staff.examiner).get(url).text

    assert 'data-confirm-text="Release the results of 1 attempt? Their students see' in shown

"""The examiner's marking queue page: filters, anonymity and the one access rule."""

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from grading.models.marking import QuizMarkingPolicy
from grading.services.marking.marks import MarkInput, mark_create
from tests.grading.content import VIVA
from tests.grading.factories import Staff, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db
URL = reverse("grading-pages:marking-queue")
T = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def staff() -> Staff:
    made, _ = staffed_quiz(VIVA)
    submitted_attempt(made.quiz, made.student, {0: {"text": "It adds."}})
    return made


def test_the_queue_lists_the_answer_and_filters_it(staff: Staff) -> None:
    page = _browser(staff.examiner)
    listed = page.get(URL, {"quiz": str(staff.quiz.pk), "status": "unmarked"})
    assert listed.status_code == 200
    assert staff.student.username in listed.text
    flagged = page.get(URL, {"quiz": str(staff.quiz.pk), "status": "flagged"})
    assert "Nothing to mark here." in flagged.text


def test_anonymous_marking_hides_the_name(staff: Staff) -> None:
    shown = _browser(staff.examiner).get(URL, {"anonymous": "true"})
    assert staff.student.username not in shown.text
    assert "Candidate " in shown.text
    QuizMarkingPolicy.objects.create(quiz=staff.quiz, anonymous_marking=True)
    assert staff.student.username not in _browser(staff.examiner).get(URL).text


def test_bad_filters_are_explained_not_a_500(staff: Staff) -> None:
    for bad in ({"quiz": "x"}, {"status": "nonsense"}, {"page": "-1"}, {"quiz": "9" * 30}):
        reply = _browser(staff.examiner).get(URL, bad)
        assert reply.status_code == 200


def test_other_courses_answers_are_not_listed(staff: Staff) -> None:
    assert staff.student.username not in _browser(staff.outsider).get(URL).text
    assert _browser(staff.student).get(URL).status_code == 403  # examiners only
    assert Client().get(URL).status_code == 302


def test_each_listed_answer_links_to_its_marking_page_keeping_anonymity(staff: Staff) -> None:
    answer = staff.quiz.attempts.get().responses.get()
    page = _browser(staff.examiner)
    marking = reverse("grading-pages:marking", args=[answer.pk])
    assert f'href="{marking}"' in page.get(URL).text
    assert f'href="{marking}?anonymous=true"' in page.get(URL, {"anonymous": "true"}).text
    assert page.get(marking).status_code == 200


def test_the_filters_refresh_the_list_in_place_with_htmx(staff: Staff) -> None:
    reply = _browser(staff.examiner).get(URL, {"status": "flagged"}, headers={"HX-Request": "true"})
    assert reply.status_code == 200
    assert 'id="queue"' in reply.text
    assert "Nothing to mark here." in reply.text


def test_an_answer_awaiting_its_second_mark_says_whose_mark_is_awaited(staff: Staff) -> None:
    QuizMarkingPolicy.objects.create(quiz=staff.quiz, double_marking=True)
    answer = staff.quiz.attempts.get().responses.get()
    mark_create(response_id=answer.pk, marker=staff.examiner, data=MarkInput([1]), now=T)
    chosen = {"status": "awaiting_second"}
    first = _browser(staff.examiner).get(URL, chosen).text
    assert "(you gave the first mark: another examiner gives the second)" in first
    second = _browser(staff.second).get(URL, chosen).text
    assert "(yours to give, blind: the first mark stays hidden until you have marked)" in second
    assert "you gave the first mark" not in second

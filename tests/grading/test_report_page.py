"""The quiz report page: charts and figures from the statistics service, CSV links."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.grading.content import SINGLE
from tests.grading.factories import Staff, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


def _browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def staff() -> Staff:
    made, _ = staffed_quiz(SINGLE)
    submitted_attempt(made.quiz, made.student, {0: {"choice": 0}})
    return made


def test_the_report_draws_both_charts_and_links_the_csvs(staff: Staff) -> None:
    page = _browser(staff.examiner).get(f"/examiner/quizzes/{staff.quiz.pk}/report/")
    assert page.status_code == 200
    assert page.text.count("<svg") == 2
    assert "1 graded attempt" in page.text
    csv_url = f"/api/quizzes/{staff.quiz.pk}/statistics.csv?attempts=all"
    assert csv_url in page.text
    assert _browser(staff.examiner).get(csv_url).status_code == 200


def test_a_bad_scope_falls_back_and_outsiders_get_nothing(staff: Staff) -> None:
    url = f"/examiner/quizzes/{staff.quiz.pk}/report/"
    assert _browser(staff.examiner).get(url, {"attempts": "nonsense"}).status_code == 200
    assert _browser(staff.outsider).get(url).status_code == 404
    assert _browser(staff.student).get(url).status_code == 403

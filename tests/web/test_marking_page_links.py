"""Links out of the marking page keep anonymous marking on, so going back to the queue does
not show the names the examiner chose to hide."""

import pytest
from django.urls import reverse

from tests.grading.content import VIVA
from tests.grading.factories import browser_as, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


def test_back_to_the_queue_from_an_anonymous_marking_page_keeps_names_hidden() -> None:
    staff, _ = staffed_quiz(VIVA)
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "It adds."}})
    answer = attempt.responses.get(position=0)
    page = browser_as(staff.examiner)
    marking = reverse("grading-pages:marking", args=[answer.pk])
    queue = reverse("grading-pages:marking-queue")

    anonymous = page.get(marking, {"anonymous": "true"}).content.decode()
    named = page.get(marking).content.decode()

    assert f'<a href="{queue}?anonymous=true">Back to the queue</a>' in anonymous
    assert staff.student.username not in page.get(f"{queue}?anonymous=true").content.decode()
    assert f'<a href="{queue}">Back to the queue</a>' in named

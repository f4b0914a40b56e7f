"""A refused form on the examiners' and authors' pages shows what was typed again, so a
refusal never costs the examiner or author their text."""

import pytest
from django.urls import reverse

from grading.services.release import release_blockers
from quizbank.models import ReleasePolicy, Role
from tests.grading.content import SINGLE, VIVA
from tests.grading.factories import (
    browser_as,
    new_user,
    staffed_quiz,
    submitted_attempt,
)

pytestmark = pytest.mark.django_db


def test_a_refused_release_anyway_keeps_the_typed_reason_and_lists_the_fresh_answers() -> None:
    # A second student submitted after the page was loaded: the override names one answer
    # too few and is refused; the reason used to be lost to a redirect.
    staff, _ = staffed_quiz(SINGLE, VIVA)
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    first = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "a"}})
    listed = first.responses.get(position=1).pk
    url = reverse("grading-pages:quiz-release", args=[staff.quiz.pk])
    page = browser_as(staff.examiner)
    submitted_attempt(staff.quiz, new_user(), {0: {"choice": 0}, 1: {"text": "b"}})

    body = {"override": "1", "responses": str(listed), "reason": "Grades are due <today>"}
    refused = page.post(url, body)

    assert refused.status_code == 200
    assert "Not released: The override does not name 1 answer" in refused.text
    assert "<details open>" in refused.text
    assert ">Grades are due &lt;today&gt;</textarea>" in refused.text
    fresh = ",".join(str(b.response) for b in release_blockers(staff.quiz))
    assert f'name="responses" value="{fresh}"' in refused.text
    first.refresh_from_db()
    assert first.released_at is None


def test_a_refused_plain_release_still_redirects_back_to_the_page() -> None:
    staff, _ = staffed_quiz(SINGLE, VIVA)
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "a"}})
    url = reverse("grading-pages:quiz-release", args=[staff.quiz.pk])

    refused = browser_as(staff.examiner).post(url)

    assert refused.status_code == 302
    assert "<details open>" not in browser_as(staff.examiner).get(url).text


def test_a_refused_topic_keeps_its_typed_title_beside_the_error() -> None:
    staff, _ = staffed_quiz(SINGLE)  # its course has a topic titled "Autograd"
    author = staff.course.memberships.create(user=new_user(), role=Role.AUTHOR).user
    url = reverse("quizbank-pages:question-list", args=[staff.course.pk])

    refused = browser_as(author).post(url, {"title": "AUTOGRAD"})

    assert refused.status_code == 200
    assert 'value="AUTOGRAD" aria-invalid="true"' in refused.text
    assert 'id="new-topic-error" role="alert">Not added: the course already has a topic' in (
        refused.text
    )
    assert staff.course.topics.count() == 1

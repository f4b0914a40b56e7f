"""The result page shows the viva's rubric level per criterion, the examiner's comment, and a
note when a mark changed after release."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from grading.models import ResponseStatus
from grading.models.marking import Mark
from grading.services.attempts import attempt_start
from grading.services.responses import attempt_submit, response_autosave
from quizbank.models import ReleasePolicy
from tests.grading.content import SINGLE, VIVA
from tests.grading.factories import api_as, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_the_student_sees_rubric_levels_the_comment_and_a_changed_mark() -> None:
    staff, _ = staffed_quiz(SINGLE, VIVA, points="4")
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    examiner = api_as(staff.examiner)
    with time_machine.travel(T0, tick=False) as clock:
        attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "t"}})
        viva = attempt.responses.get(position=1)
        body = {"levels": [2], "comment": "Say where zero_grad goes."}
        assert examiner.post(f"/api/marking/responses/{viva.pk}/marks/", body).status_code == 201
        clock.move_to(T0 + timedelta(minutes=2))
        assert examiner.post(f"/api/quizzes/{staff.quiz.pk}/release/").status_code == 200
        clock.move_to(T0 + timedelta(minutes=5))
        mark = Mark.objects.get(response=viva)
        change = {"levels": [1], "reason": "Second look", "comment": "Say where zero_grad goes."}
        assert examiner.put(f"/api/marking/marks/{mark.pk}/", change).status_code == 200
        clock.move_to(T0 + timedelta(hours=1))
        client = Client()
        client.force_login(staff.student)
        page = client.get(f"/attempts/{attempt.pk}/result/").content.decode()

    assert "Say where zero_grad goes." in page
    assert "Rubric" in page
    assert "A mark changed after release" in page
    assert "Mark updated on" in page
    assert "rubric points: the question's score is that share of its points" in page


def test_an_answer_still_pending_says_what_it_waits_for_in_words() -> None:
    staff, _ = staffed_quiz(SINGLE, VIVA, points="4")
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "t"}})
    client = Client()
    client.force_login(staff.student)
    page = client.get(f"/attempts/{attempt.pk}/result/").content.decode()
    assert "Waiting for an examiner" in page
    assert "needsmarking" not in page


def test_the_page_updates_itself_only_while_the_runner_grades_not_while_a_person_marks() -> None:
    staff, _ = staffed_quiz(SINGLE, VIVA, points="4")
    staff.quiz.release_policy = ReleasePolicy.IMMEDIATELY
    staff.quiz.save()
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "t"}})
    client = Client()
    client.force_login(staff.student)
    waiting_for_a_person = client.get(f"/attempts/{attempt.pk}/result/").content.decode()
    assert "waiting for an examiner to mark them" in waiting_for_a_person
    assert "hx-trigger" not in waiting_for_a_person
    # As a code answer waits for the runner (the only answer status set by hand here).
    attempt.responses.filter(position=0).update(status=ResponseStatus.QUEUED)
    grading = client.get(f"/attempts/{attempt.pk}/result/").content.decode()
    assert "This page updates itself" in grading
    assert 'hx-trigger="every 3s"' in grading


def test_feedback_without_cases_is_shown_rather_than_an_empty_heading() -> None:
    staff, _ = staffed_quiz(SINGLE, SINGLE)
    staff.quiz.release_policy = ReleasePolicy.IMMEDIATELY
    staff.quiz.save()
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}})
    client = Client()
    client.force_login(staff.student)
    page = client.get(f"/attempts/{attempt.pk}/result/").content.decode()
    assert "No answer was given." in page
    # A choice's feedback says which choice it is about.
    assert "On your choice “3”:</p><p>Three axes.</p>" in page


def test_an_unreleased_attempt_says_it_waits_for_release_even_while_marking_goes_on() -> None:
    staff, _ = staffed_quiz(SINGLE, VIVA, points="4")
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "t"}})
    client = Client()
    client.force_login(staff.student)
    page = client.get(f"/attempts/{attempt.pk}/result/").content.decode()
    assert "appear once your examiner releases them" in page
    assert "This page updates itself" not in page  # nothing to wait for here until release
    assert "hx-trigger" not in page


def test_a_shuffled_choices_feedback_names_the_choice_the_student_picked() -> None:
    # Scoring keys a choice's feedback by the author's index; the page named the choice shown
    # at that place instead, so after a shuffle it quoted a choice the student never picked.
    staff, _ = staffed_quiz(SINGLE)
    staff.quiz.release_policy = ReleasePolicy.IMMEDIATELY
    staff.quiz.save()
    attempt = attempt_start(quiz=staff.quiz, user=staff.student, now=timezone.now())
    attempt.responses.filter(position=0).update(choice_order=[2, 0, 1])
    # Shown id 0 is the author's choice 2, "4".
    response_autosave(
        attempt=attempt, position=0, answer={"choice": 0}, version=0, now=timezone.now()
    )
    attempt_submit(attempt=attempt, now=timezone.now())
    client = Client()
    client.force_login(staff.student)

    page = client.get(f"/attempts/{attempt.pk}/result/").content.decode()
    api = client.get(f"/api/attempts/{attempt.pk}/").json()

    assert "On your choice “4”:</p><p>One axis too many.</p>" in page
    assert api["responses"][0]["feedback"]["choices"] == [
        {"choice": 0, "feedback": "One axis too many."}
    ]


def test_a_written_answer_keeps_its_paragraphs_and_line_breaks_escaped() -> None:
    # The answer was one <p>, so a student's paragraphs (and a live viva's notes) ran into
    # one line on the result page, while the marking page showed them apart.
    staff, _ = staffed_quiz(SINGLE, VIVA, points="4")
    text = "First, <b>grads</b> add up.\nSo they are zeroed.\n\nSecond paragraph & more."
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": text}})
    client = Client()
    client.force_login(staff.student)

    page = client.get(f"/attempts/{attempt.pk}/result/").content.decode()

    assert (
        '<div class="answer-text"><p>First, &lt;b&gt;grads&lt;/b&gt; add up.<br>So they are zeroed.'
        "</p>\n\n<p>Second paragraph &amp; more.</p></div>"
    ) in page

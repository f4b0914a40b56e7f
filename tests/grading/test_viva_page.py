"""The live viva page: start, draw, notes and marks, finish; refusals are messages."""

import pytest
from django.test import Client
from django.utils.timezone import localtime
from pytest_django import Settings

from grading.models import AttemptStatus
from grading.models.viva_sessions import VivaSession
from quizbank.models import QuizSlot
from tests.grading.content import VIVA
from tests.grading.factories import (
    Staff,
    browser_as,
    new_topic,
    question,
    staffed_quiz,
    viva_staff,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff() -> Staff:
    return viva_staff()


def _viva_with_one_question(staff: Staff) -> tuple[Client, VivaSession, str]:
    """The examiner's browser on a started viva with one question drawn, and its address."""
    page = browser_as(staff.examiner)
    page.post(f"/examiner/quizzes/{staff.quiz.pk}/viva/", {"student": staff.student.pk})
    session = VivaSession.objects.get(attempt__user=staff.student)
    url = f"/examiner/vivas/{session.pk}/"
    page.post(url, {"action": "draw"})
    return page, session, url


def test_an_examiner_runs_a_viva_from_start_to_finish(staff: Staff) -> None:
    page = browser_as(staff.examiner)
    started = page.post(f"/examiner/quizzes/{staff.quiz.pk}/viva/", {"student": staff.student.pk})
    assert started.status_code == 302
    session = VivaSession.objects.get(attempt__user=staff.student)
    url = f"/examiner/vivas/{session.pk}/"
    page.post(url, {"action": "draw"})
    shown = page.get(url)
    assert VIVA["model_answer"][:20] in shown.text
    assert 'id="viva-timer"' in shown.text
    assert 'data-confirm-text="Finish the viva? No more questions can be drawn' in shown.text
    levels = {f"level-{i}": "1" for i in range(len(VIVA["rubric"]))}
    page.post(url, {"action": "record", "position": "0", "notes": "Said it sums.", **levels})
    recorded = page.get(url).text
    assert recorded.count(' value="1" checked>') == len(VIVA["rubric"])  # shown as recorded
    assert recorded.count(" checked>") == len(VIVA["rubric"])
    page.post(url, {"action": "end"})
    session.refresh_from_db()
    attempt = session.attempt
    attempt.refresh_from_db()
    assert attempt.responses.get(position=0).answer == {"text": "Said it sums."}
    assert attempt.status == AttemptStatus.GRADED
    ended = page.get(url).text
    assert "Total: " in ended
    release = f'<a href="/examiner/quizzes/{staff.quiz.pk}/release/">release the quiz'
    assert release in ended, "the ended viva leads on to the release"
    assert "Finish the viva? No more questions can be drawn" not in ended  # no form once ended
    page.post(f"/examiner/quizzes/{staff.quiz.pk}/release/")
    result = browser_as(staff.student).get(f"/attempts/{attempt.pk}/result/").text
    assert "Your answer, as the examiner noted it" in result
    assert "Said it sums." in result


def test_the_start_time_says_its_time_zone(staff: Staff, settings: Settings) -> None:
    """An examiner or student in another zone cannot read a bare "14:05"."""
    settings.TIME_ZONE = "Asia/Tokyo"
    page, session, url = _viva_with_one_question(staff)
    started = localtime(session.started_at)
    assert f"started {started:%-d %b %Y, %H:%M} JST ·" in page.get(url).text


def test_a_viva_with_nothing_asked_is_cancelled_from_the_page(staff: Staff) -> None:
    page = browser_as(staff.examiner)
    page.post(f"/examiner/quizzes/{staff.quiz.pk}/viva/", {"student": staff.student.pk})
    session = VivaSession.objects.get(attempt__user=staff.student)
    url = f"/examiner/vivas/{session.pk}/"
    shown = page.get(url).text
    assert "Cancel the viva (nothing asked)" in shown
    assert "Finish the viva</button>" not in shown
    cancelled = page.post(url, {"action": "cancel"}, follow=True)
    assert cancelled.redirect_chain[-1][0] == f"/examiner/quizzes/{staff.quiz.pk}/viva/"
    assert "The viva is cancelled" in cancelled.text
    assert not VivaSession.objects.filter(pk=session.pk).exists()
    assert page.get(url).status_code == 404


def test_the_page_says_where_draws_come_from_and_offers_only_their_topics(staff: Staff) -> None:
    other_topic = new_topic(course=staff.course, title="Not in this quiz")
    question(staff.course, {**VIVA, "title": "Elsewhere"}, topic=other_topic)
    page = browser_as(staff.examiner)
    page.post(f"/examiner/quizzes/{staff.quiz.pk}/viva/", {"student": staff.student.pk})
    session = VivaSession.objects.get(attempt__user=staff.student)
    shown = page.get(f"/examiner/vivas/{session.pk}/").text
    assert "Draws come from this quiz's 1 viva question," in shown
    assert "Not in this quiz" not in shown
    page.post(f"/examiner/vivas/{session.pk}/", {"action": "draw"})
    again = page.post(f"/examiner/vivas/{session.pk}/", {"action": "draw"}, follow=True)
    assert "No viva question of this quiz is left to ask in this session." in again.text
    assert "Elsewhere" not in again.text
    assert "(the student sees them with the result, as their answer)" in again.text


def test_the_examiner_narrows_a_draw_by_tag_and_difficulty(staff: Staff) -> None:
    # The page offered a topic only, though a draw may be narrowed by tag and difficulty.
    tagged = question(
        staff.course, {**VIVA, "title": "Tagged hard", "tags": ["graphs"], "difficulty": "advanced"}
    )
    QuizSlot.objects.create(quiz=staff.quiz, position=1, question=tagged)
    page = browser_as(staff.examiner)
    page.post(f"/examiner/quizzes/{staff.quiz.pk}/viva/", {"student": staff.student.pk})
    session = VivaSession.objects.get(attempt__user=staff.student)
    url = f"/examiner/vivas/{session.pk}/"
    shown = page.get(url).text
    assert '<option value="graphs">graphs</option>' in shown
    assert '<option value="advanced">Advanced</option>' in shown

    drawn = page.post(url, {"action": "draw", "tag": "graphs"}, follow=True)
    assert "Question 1: Tagged hard" in drawn.text
    refused = page.post(url, {"action": "draw", "difficulty": "godlike"}, follow=True)
    assert "Not done: Choose a difficulty from the list" in refused.text
    none_left = page.post(url, {"action": "draw", "difficulty": "advanced"}, follow=True)
    assert "Not done: No viva question of this quiz is left" in none_left.text
    assert session.attempt.responses.count() == 1


def test_hostile_input_is_a_message_and_others_get_nothing(staff: Staff) -> None:
    page = browser_as(staff.examiner)
    start = f"/examiner/quizzes/{staff.quiz.pk}/viva/"
    refused = page.post(start, {"student": staff.outsider.pk}, follow=True)
    assert "Choose a student of this course." in refused.text
    page.post(start, {"student": staff.student.pk})
    session = VivaSession.objects.get(attempt__user=staff.student)
    url = f"/examiner/vivas/{session.pk}/"
    for body, said in (
        ({"action": "record", "position": "7"}, "Not done: No question was drawn at position 7"),
        ({"action": "draw", "topic": "x"}, "Not done: Choose a topic from the list"),
        ({"action": "zzz"}, "Not done: Choose draw, record, discard, end or cancel."),
        (
            {"action": "discard", "position": "x"},
            "Not done: Say which question of the viva to put back.",
        ),
        (
            {"action": "discard", "position": "99", "id": "1"},
            "Not done: No question was drawn at position 99",
        ),
        ({"action": "end"}, "Not done: No question was asked: draw one, or cancel the viva"),
        ({"action": "draw"}, "A question was drawn."),
        ({"action": "record", "position": "0", "notes": "n"}, "Notes saved; choose a level"),
        (
            {"action": "record", "position": "0", "notes": "n" * 20_001},
            "Not done: The notes are 20,001 characters long",
        ),
    ):
        reply = page.post(url, body, follow=True)
        assert reply.status_code == 200
        assert said in reply.text, body
    assert session.attempt.responses.get(position=0).answer == {"text": "n"}
    assert browser_as(staff.outsider).get(url).status_code == 404
    assert browser_as(staff.student).get(url).status_code in (403, 404)


def test_a_question_drawn_by_mistake_is_put_back_from_the_page(staff: Staff) -> None:
    page, session, url = _viva_with_one_question(staff)
    assert "Put this question back unasked" in page.get(url).text
    drawn = session.attempt.responses.get()
    assert f'name="id" value="{drawn.pk}"' in page.get(url).text
    put_back = page.post(url, {"action": "discard", "position": "0", "id": drawn.pk}, follow=True)
    assert "The question was put back; it is not drawn again in this viva." in put_back.text
    assert "No question drawn yet." in put_back.text
    assert session.attempt.responses.count() == 0


def test_a_put_back_from_a_stale_page_leaves_the_question_drawn_since(staff: Staff) -> None:
    question(staff.course, {**VIVA, "title": "Another", "tags": ["oral"]})
    QuizSlot.objects.create(quiz=staff.quiz, position=1, pool_tag="oral")
    page, session, url = _viva_with_one_question(staff)
    first = session.attempt.responses.get()
    page.post(url, {"action": "discard", "position": "0", "id": first.pk})
    page.post(url, {"action": "draw"})
    second = session.attempt.responses.get()
    for body in ({"id": first.pk}, {}):  # a stale tab, and a page drawn before the id was sent
        stale = page.post(url, {"action": "discard", "position": "0", **body}, follow=True)
        assert "Not done:" in stale.text
        assert session.attempt.responses.get() == second
    said = "The question at position 0 is no longer the one meant"
    assert said in page.post(url, {"action": "discard", "position": "0", "id": first.pk}).text


def test_starting_a_viva_already_under_way_opens_it(staff: Staff) -> None:
    page = browser_as(staff.examiner)
    start = f"/examiner/quizzes/{staff.quiz.pk}/viva/"
    page.post(start, {"student": staff.student.pk})
    session = VivaSession.objects.get(attempt__user=staff.student)
    again = page.post(start, {"student": staff.student.pk}, follow=True)
    assert again.redirect_chain[-1][0] == f"/examiner/vivas/{session.pk}/"
    assert f"The live viva with {staff.student.username} is under way" in again.text
    assert VivaSession.objects.filter(attempt__user=staff.student).count() == 1


def test_a_refused_record_comes_back_as_typed_and_says_what_was_saved(staff: Staff) -> None:
    page, session, url = _viva_with_one_question(staff)
    assert 'maxlength="20000"' in page.get(url).text
    long_notes = {"action": "record", "position": "0", "notes": "Typed " + "n" * 20_000}
    refused = page.post(url, long_notes)
    assert refused.status_code == 200
    assert "Not done: The notes are 20,006 characters long" in refused.text
    assert ">Typed nnn" in refused.text  # the notes come back as typed
    assert session.attempt.responses.get(position=0).answer is None
    one_level = {"action": "record", "position": "0", "notes": "Said it sums.", "level-0": "99"}
    partly = page.post(url, one_level)
    assert "The notes are saved, but not the mark:" in partly.text
    assert "Not done" not in partly.text
    assert session.attempt.responses.get(position=0).answer == {"text": "Said it sums."}
    assert partly.text.count(" checked>") == 0  # no such level to show as chosen


def test_notes_from_a_stale_page_leave_the_question_drawn_since_alone(staff: Staff) -> None:
    question(staff.course, {**VIVA, "title": "Another", "tags": ["oral"]})
    QuizSlot.objects.create(quiz=staff.quiz, position=1, pool_tag="oral")
    page, session, url = _viva_with_one_question(staff)
    first = session.attempt.responses.get()
    assert f'name="id" value="{first.pk}"' in page.get(url).text
    page.post(url, {"action": "discard", "position": "0", "id": first.pk})
    page.post(url, {"action": "draw"})
    body = {"action": "record", "position": "0", "id": first.pk, "notes": "About the first."}
    stale = page.post(url, body, follow=True)
    assert "Nothing was recorded" in stale.text
    assert session.attempt.responses.get().answer != {"text": "About the first."}


def test_drawing_putting_back_and_finishing_warn_of_unsaved_notes(staff: Staff) -> None:
    # Drawing the next question is another form: it dropped notes and levels typed for the
    # question before without a word, and "Put back" dropped a question with no question.
    page, _, url = _viva_with_one_question(staff)

    shown = page.get(url).text

    assert '<form method="post" data-viva-record>' in shown
    assert 'data-confirm-text="Draw the next question? Notes or levels you changed' in shown
    watched = "[data-viva-record] textarea, [data-viva-record] input[type=radio]"
    assert f'data-confirm-if-edited="{watched}"' in shown
    assert 'data-confirm-text="Put question 1 back unasked? Its notes are dropped' in shown
    assert "Notes or levels not saved with “Save notes and marks” are lost." in shown


def test_starting_a_viva_of_a_quiz_taken_online_says_it_uses_an_attempt_and_asks_first(
    staff: Staff,
) -> None:
    staff.quiz.attempts_allowed = 2
    staff.quiz.save()
    start = browser_as(staff.examiner).get(f"/examiner/quizzes/{staff.quiz.pk}/viva/").text
    assert "A live viva counts as one of the student's attempts (2 allowed)" in start
    assert "drawn from the quiz's viva questions" in start
    assert 'data-confirm-text="Start a live viva of Viva quiz?' in start


def test_a_viva_only_quiz_starts_without_the_warning() -> None:
    staff, _ = staffed_quiz({**VIVA, "mode": "oral"})
    start = browser_as(staff.examiner).get(f"/examiner/quizzes/{staff.quiz.pk}/viva/").text
    assert "counts as one of the student's attempts" not in start
    assert "data-confirm-text" not in start

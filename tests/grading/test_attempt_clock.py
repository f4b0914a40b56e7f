"""The attempt clock at its exact instants: open, close, deadline plus grace, and submit."""

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User

from grading.errors import AttemptClosed, DeadlinePassed, QuizNotOpen
from grading.models import Attempt, AttemptStatus
from grading.services.attempts import answers_close_at, attempt_is_overdue, attempt_start
from grading.services.responses import (
    attempt_close_if_overdue,
    attempt_submit,
    attempts_close_overdue,
    response_autosave,
)
from quizbank.models import Quiz, Role
from tests.grading.content import SINGLE
from tests.grading.factories import add_slots, member, new_course, new_quiz, question

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
CLOSES = T0 + timedelta(minutes=30, seconds=30)  # the deadline plus the grace period
TICK = timedelta(microseconds=1)


@pytest.fixture
def quiz() -> Quiz:
    """A 30-minute quiz with a 30-second grace period and one single-choice question (its
    choices unshuffled, so choice 0 on the page is the author's correct choice 0)."""
    course = new_course()
    made = new_quiz(
        course=course,
        time_limit=timedelta(minutes=30),
        grace_period=timedelta(seconds=30),
        shuffle_choices=False,
    )
    add_slots(made, question(course, SINGLE))
    return made


def student(quiz: Quiz) -> User:
    return member(quiz.course, Role.STUDENT)


def started(quiz: Quiz) -> Attempt:
    return attempt_start(quiz=quiz, user=student(quiz), now=T0)


def test_answers_close_at_the_deadline_plus_grace_and_an_untimed_attempt_never_closes(
    quiz: Quiz,
) -> None:
    attempt = started(quiz)
    assert answers_close_at(attempt) == CLOSES
    assert attempt_is_overdue(attempt, CLOSES) is False
    assert attempt_is_overdue(attempt, CLOSES + TICK) is True
    untimed_quiz = new_quiz(course=quiz.course)
    add_slots(untimed_quiz, question(quiz.course, SINGLE))
    untimed = attempt_start(quiz=untimed_quiz, user=student(quiz), now=T0)
    assert answers_close_at(untimed) is None
    assert attempt_is_overdue(untimed, T0 + timedelta(days=365)) is False


def test_an_answer_saved_at_the_exact_close_instant_is_kept_and_one_just_after_refused(
    quiz: Quiz,
) -> None:
    attempt = started(quiz)
    saved = response_autosave(
        attempt=attempt, position=0, answer={"choice": 0}, version=0, now=CLOSES
    )
    assert (saved.version, saved.answer) == (1, {"choice": 0})
    with pytest.raises(DeadlinePassed) as refused:
        response_autosave(
            attempt=attempt, position=0, answer={"choice": 1}, version=1, now=CLOSES + TICK
        )
    assert str(refused.value) == (
        "Answers closed at 2026-03-02T09:30:30+00:00; this answer was not saved."
    )


def test_an_answer_to_a_submitted_attempt_is_refused_as_closed(quiz: Quiz) -> None:
    attempt = started(quiz)
    attempt_submit(attempt=attempt, now=T0 + timedelta(minutes=1))
    with pytest.raises(AttemptClosed) as refused:
        response_autosave(
            attempt=attempt,
            position=0,
            answer={"choice": 0},
            version=0,
            now=T0 + timedelta(minutes=2),
        )
    assert str(refused.value) == "The attempt has been submitted; answers can no longer change."


def test_a_quiz_can_be_started_from_its_opening_instant(quiz: Quiz) -> None:
    quiz.opens_at = T0
    quiz.save()
    with pytest.raises(QuizNotOpen) as refused:
        attempt_start(quiz=quiz, user=student(quiz), now=T0 - TICK)
    assert str(refused.value) == "The quiz opens at 2026-03-02T09:00:00+00:00."
    assert attempt_start(quiz=quiz, user=student(quiz), now=T0).started_at == T0


def test_a_quiz_cannot_be_started_from_its_closing_instant(quiz: Quiz) -> None:
    quiz.closes_at = T0
    quiz.save()
    attempt = attempt_start(quiz=quiz, user=student(quiz), now=T0 - TICK)
    assert attempt.deadline == T0  # the close caps the time limit
    with pytest.raises(QuizNotOpen) as refused:
        attempt_start(quiz=quiz, user=student(quiz), now=T0)
    assert str(refused.value) == "The quiz closed at 2026-03-02T09:00:00+00:00."


def test_a_submit_at_the_close_instant_is_on_time_and_grades_at_that_instant(quiz: Quiz) -> None:
    attempt = started(quiz)
    response_autosave(attempt=attempt, position=0, answer={"choice": 0}, version=0, now=T0)
    submitted = attempt_submit(attempt=attempt, now=CLOSES)
    submitted.refresh_from_db()
    assert submitted.auto_submitted is False
    assert (submitted.status, submitted.submitted_at, submitted.graded_at) == (
        AttemptStatus.GRADED,
        CLOSES,
        CLOSES,
    )
    assert submitted.idempotency_key == ""
    response = submitted.responses.get()
    assert (response.score, response.graded_at) == (1.0, CLOSES)


def test_a_submit_just_after_the_close_instant_is_recorded_as_automatic(quiz: Quiz) -> None:
    attempt = attempt_submit(attempt=started(quiz), now=CLOSES + TICK)
    assert attempt.auto_submitted is True
    assert attempt.submitted_at == CLOSES + TICK


def test_the_idempotency_key_is_kept_to_its_first_hundred_characters(quiz: Quiz) -> None:
    attempt = attempt_submit(attempt=started(quiz), now=T0, idempotency_key="k" * 150)
    attempt.refresh_from_db()
    assert attempt.idempotency_key == "k" * 100


def test_looking_at_an_overdue_attempt_submits_it_at_that_instant(quiz: Quiz) -> None:
    attempt = started(quiz)
    assert attempt_close_if_overdue(attempt=attempt, now=CLOSES).status == AttemptStatus.OPEN
    closed = attempt_close_if_overdue(attempt=attempt, now=CLOSES + TICK)
    closed.refresh_from_db()
    assert (closed.auto_submitted, closed.submitted_at) == (True, CLOSES + TICK)


def test_the_beat_task_submits_every_overdue_attempt_and_counts_them(quiz: Quiz) -> None:
    overdue = [started(quiz), started(quiz)]
    late_starter = attempt_start(quiz=quiz, user=student(quiz), now=T0 + timedelta(minutes=5))
    assert attempts_close_overdue(now=CLOSES) == 0
    assert attempts_close_overdue(now=CLOSES + TICK) == 2
    for attempt in overdue:
        attempt.refresh_from_db()
        assert (attempt.status, attempt.auto_submitted) == (AttemptStatus.GRADED, True)
        assert (attempt.submitted_at, attempt.idempotency_key) == (CLOSES + TICK, "")
    late_starter.refresh_from_db()
    assert late_starter.status == AttemptStatus.OPEN


def test_one_beat_run_submits_at_most_500_attempts_the_longest_overdue_first(quiz: Quiz) -> None:
    users = User.objects.bulk_create(User(username=f"many{n}") for n in range(501))
    Attempt.objects.bulk_create(
        Attempt(
            quiz=quiz,
            user=user,
            number=1,
            seed=n,
            started_at=T0,
            last_activity_at=T0,
            deadline=T0 + timedelta(seconds=n),
        )
        for n, user in enumerate(users)
    )
    assert attempts_close_overdue(now=T0 + timedelta(hours=1)) == 500
    still_open = Attempt.objects.get(status=AttemptStatus.OPEN)
    assert still_open.deadline == T0 + timedelta(seconds=500)


def test_a_beat_run_spends_its_batch_on_open_attempts_only(quiz: Quiz) -> None:
    submitted = attempt_submit(attempt=started(quiz), now=T0 + timedelta(minutes=1))
    Attempt.objects.filter(pk=submitted.pk).update(deadline=T0 - timedelta(days=1))
    overdue = started(quiz)
    assert attempts_close_overdue(now=CLOSES + TICK, limit=1) == 1
    overdue.refresh_from_db()
    assert overdue.auto_submitted is True


def test_one_attempt_that_cannot_be_submitted_does_not_stop_the_others(
    quiz: Quiz, caplog: pytest.LogCaptureFixture
) -> None:
    """The sweep takes the oldest deadline first: a broken attempt there stopped every sweep."""
    broken, sound = started(quiz), started(quiz)
    # A stored answer no scorer can read (written past the autosave's checks).
    broken.responses.update(answer={"unreadable": True})
    assert attempts_close_overdue(now=CLOSES + TICK) == 1
    broken.refresh_from_db()
    sound.refresh_from_db()
    assert (broken.status, sound.status) == (AttemptStatus.OPEN, AttemptStatus.GRADED)
    assert f"auto-submitting overdue attempt {broken.pk} failed" in caplog.text

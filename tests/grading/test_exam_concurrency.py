"""A room of students starting and autosaving one quiz at once, on real PostgreSQL with one
connection per thread: no transaction may deadlock or wait for another student's row.

Each start inserts an attempt and its responses, which takes KEY SHARE on the quiz and on the
question versions they point at; each autosave locks its own attempt and response. The locks
must never reach the shared quiz or question-version rows in a mode that conflicts with those
inserts, or a start and an autosave wait for each other (PostgreSQL's "deadlock detected ...
while locking tuple in relation quizbank_quiz" of the 300-student load run).

A release that runs while a student submits releases exactly the attempts it checked.
"""

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from grading.errors import ReleaseBlocked
from grading.models import Attempt, Response, ResponseStatus
from grading.services import release as release_services
from grading.services.attempts import attempt_start
from grading.services.release import quiz_results_release
from grading.services.responses import attempt_submit, response_autosave
from quizbank.models import Quiz, ReleasePolicy
from tests.grading.content import MULTIPLE, NUMERIC, SINGLE, TRUE_FALSE, VIVA
from tests.grading.factories import (
    add_slots,
    enrolled,
    new_course,
    new_quiz,
    new_user,
    question,
    staffed_quiz,
)

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 6  # autosaves per student
ANSWERS = [{"choice": 0}, {"choices": [0, 2]}, {"value": True}, {"value": 11}]


def _exam_quiz() -> Quiz:
    course = new_course()
    quiz = new_quiz(course=course, shuffle_questions=False, shuffle_choices=False)
    add_slots(quiz, *(question(course, c) for c in (SINGLE, MULTIPLE, TRUE_FALSE, NUMERIC)))
    return quiz


def _in_own_connection(work: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        try:
            work()
        finally:
            connection.close()

    return run


def _student(quiz: Quiz, user: User, go: threading.Barrier) -> Callable[[], None]:
    def exam() -> None:
        go.wait()
        attempt = attempt_start(quiz=quiz, user=user, now=timezone.now())
        for turn in range(ROUNDS):
            for position, answer in enumerate(ANSWERS):
                response_autosave(
                    attempt=attempt,
                    position=position,
                    answer=answer,
                    version=turn,
                    now=timezone.now(),
                )
        attempt_submit(attempt=attempt, now=timezone.now())

    return exam


def _run_room(quiz: Quiz, students: list[User]) -> list[BaseException]:
    go = threading.Barrier(len(students))
    with ThreadPoolExecutor(max_workers=len(students)) as pool:
        futures = [pool.submit(_in_own_connection(_student(quiz, s, go))) for s in students]
    return [error for f in futures if (error := f.exception()) is not None]


def test_students_starting_and_autosaving_one_quiz_at_once_never_deadlock() -> None:
    quiz = _exam_quiz()
    students = [enrolled(quiz, new_user()) for _ in range(16)]

    errors = _run_room(quiz, students)

    assert errors == []
    assert Attempt.objects.filter(quiz=quiz, status="graded").count() == len(students)
    saved = Response.objects.filter(attempt__quiz=quiz, status=ResponseStatus.GRADED)
    assert sorted(set(saved.values_list("version", flat=True))) == [ROUNDS]


def test_an_attempt_submitted_while_a_release_checks_its_answers_waits_for_the_next_release(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A submit that commits after the release read which attempts it covers is not
    released by it, unchecked: its unmarked viva answer would show as a final score."""
    staff, _ = staffed_quiz(SINGLE, VIVA, points="4")
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    late = attempt_start(quiz=staff.quiz, user=staff.student, now=timezone.now())
    response_autosave(
        attempt=late, position=1, answer={"text": "it sums"}, version=0, now=timezone.now()
    )
    checked_answers = release_services._not_final

    def submit_late() -> None:
        attempt_submit(attempt=late, now=timezone.now())

    def submit_meanwhile(attempts: Any) -> Any:
        blockers = checked_answers(attempts)
        submitting = threading.Thread(target=_in_own_connection(submit_late))
        submitting.start()
        submitting.join()
        return blockers

    monkeypatch.setattr(release_services, "_not_final", submit_meanwhile)
    release = quiz_results_release(quiz=staff.quiz, actor=staff.examiner, now=timezone.now())
    late.refresh_from_db()
    assert late.submitted_at is not None
    assert (release.attempts, late.released_at) == ([], None)
    monkeypatch.undo()
    with pytest.raises(ReleaseBlocked):  # the next release sees it, and its unmarked viva
        quiz_results_release(quiz=staff.quiz, actor=staff.examiner, now=timezone.now())

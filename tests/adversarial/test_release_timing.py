"""A quiz releasing results after it closes: a student who submitted early reads their
feedback while a classmate can still answer (grace period, or a later close of their own)."""

from datetime import datetime, timedelta

import pytest
import time_machine
from django.contrib.auth.models import User

from grading.services.attempts import attempt_start
from grading.services.responses import attempt_submit, response_autosave
from quizbank.models import QuizAccessOverride, ReleasePolicy, Role
from tests.grading.content import SINGLE
from tests.grading.factories import add_slots, api_as, member, new_quiz, question

pytestmark = pytest.mark.django_db

CLOSE = datetime.fromisoformat("2026-06-01T12:00:00+00:00")


def _feedback_shown(student: User, attempt_id: int, at: datetime) -> bool:
    with time_machine.travel(at, tick=False):
        result = api_as(student).get(f"/api/attempts/{attempt_id}/result/").json()
    return bool(result["results_visible"])


def test_after_close_results_wait_for_the_grace_period_and_every_later_close() -> None:
    quiz = new_quiz(
        release_policy=ReleasePolicy.AFTER_CLOSE,
        closes_at=CLOSE,
        grace_period=timedelta(minutes=2),
        shuffle_choices=False,
    )
    add_slots(quiz, question(quiz.course, SINGLE))
    early, late = member(quiz.course, Role.STUDENT), member(quiz.course, Role.STUDENT)
    started = CLOSE - timedelta(minutes=30)
    done = attempt_start(quiz=quiz, user=early, now=started)
    response_autosave(attempt=done, position=0, answer={"choice": 0}, version=0, now=started)
    attempt_submit(attempt=done, now=started)
    still_open = attempt_start(quiz=quiz, user=late, now=started)

    in_grace = CLOSE + timedelta(minutes=1)
    # The late student can still change an answer, so the early one's feedback must wait.
    saved = response_autosave(
        attempt=still_open, position=0, answer={"choice": 1}, version=0, now=in_grace
    )
    assert saved.version == 1
    assert not _feedback_shown(early, done.pk, in_grace)
    assert _feedback_shown(early, done.pk, CLOSE + timedelta(minutes=2))

    QuizAccessOverride.objects.create(quiz=quiz, user=late, closes_at=CLOSE + timedelta(hours=1))
    assert not _feedback_shown(early, done.pk, CLOSE + timedelta(minutes=30))
    assert _feedback_shown(early, done.pk, CLOSE + timedelta(hours=1, minutes=2))

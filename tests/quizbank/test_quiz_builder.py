"""Building a quiz from the course's bank: settings checked, slots from this course only."""

from datetime import UTC, datetime, timedelta

import pytest

from grading.services.attempts import attempt_draw
from quizbank.errors import QuizInvalid
from quizbank.models import Quiz
from quizbank.services.quiz_builder import QuizInput, SlotInput, quiz_save, quiz_slots_set
from tests.grading.content import NUMERIC, SINGLE
from tests.grading.factories import new_course, new_topic, question

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_an_author_builds_a_quiz_with_a_fixed_question_and_a_pool() -> None:
    course = new_course()
    topic = new_topic(course=course)
    fixed = question(course, SINGLE)
    for _ in range(3):
        question(course, NUMERIC, topic=topic)
    quiz = quiz_save(
        course=course,
        data=QuizInput(slug="week-1", title="Week 1", time_limit=timedelta(minutes=20)),
    )
    quiz_slots_set(
        quiz=quiz,
        slots=[SlotInput(question_id=fixed.pk), SlotInput(pool_topic_id=topic.pk, draw_count=2)],
    )
    drawn = attempt_draw(quiz=quiz, seed=7)
    assert len(drawn) == 3
    assert drawn[0].version.question_id == fixed.pk


def test_settings_that_break_a_rule_are_refused_with_their_fields() -> None:
    course = new_course()
    bad = QuizInput(
        slug="q",
        title="Q",
        opens_at=T0,
        closes_at=T0,
        time_limit=timedelta(0),
        attempts_allowed=-1,
        release_policy="never",
    )
    with pytest.raises(QuizInvalid) as refused:
        quiz_save(course=course, data=bad)
    assert set(refused.value.fields) == {
        "closes_at",
        "time_limit",
        "attempts_allowed",
        "release_policy",
    }
    assert not Quiz.objects.filter(course=course).exists()


def test_a_taken_slug_is_refused_and_an_update_keeps_the_quiz() -> None:
    course = new_course()
    quiz = quiz_save(course=course, data=QuizInput(slug="q", title="Q"))
    with pytest.raises(QuizInvalid):
        quiz_save(course=course, data=QuizInput(slug="q", title="Again"))
    updated = quiz_save(course=course, quiz=quiz, data=QuizInput(slug="q", title="Renamed"))
    assert updated.pk == quiz.pk
    assert Quiz.objects.get(pk=quiz.pk).title == "Renamed"


def test_slots_from_another_course_or_an_empty_pool_are_refused() -> None:
    course, other = new_course(), new_course()
    foreign = question(other, SINGLE)
    quiz = quiz_save(course=course, data=QuizInput(slug="q", title="Q"))
    for slots in (
        [SlotInput(question_id=foreign.pk)],
        [SlotInput(pool_topic_id=new_topic(course=other).pk)],
        [SlotInput(pool_tag="nothing-tagged-so", draw_count=1)],
        [SlotInput()],
    ):
        with pytest.raises(QuizInvalid):
            quiz_slots_set(quiz=quiz, slots=slots)
    assert not quiz.slots.exists()

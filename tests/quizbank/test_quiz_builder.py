"""Writing a quiz (one set of rules for the API and the browser's builder): settings checked,
slots from this course only, and a quiz's questions fixed once anyone has attempted it."""

from datetime import UTC, datetime, timedelta

import pytest

from grading.services.attempts import attempt_draw
from quizbank.errors import QuizInvalid, QuizLocked, SlugTaken
from quizbank.models import Quiz
from quizbank.services.quiz_write import SlotSpec, quiz_create, quiz_update
from tests.grading.content import NUMERIC, SINGLE
from tests.grading.factories import new_course, new_topic, new_user, question, submitted_attempt

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_an_author_builds_a_quiz_with_a_fixed_question_and_a_pool() -> None:
    course = new_course()
    topic = new_topic(course=course)
    fixed = question(course, SINGLE)
    for _ in range(3):
        question(course, NUMERIC, topic=topic)
    quiz = quiz_create(
        course=course,
        data={"slug": "week-1", "title": "Week 1", "time_limit": timedelta(minutes=20)},
        slots=[SlotSpec(question=fixed.pk), SlotSpec(pool_topic=topic.slug, draw_count=2)],
    )
    drawn = attempt_draw(quiz=quiz, seed=7)
    assert len(drawn) == 3
    assert drawn[0].version.question_id == fixed.pk


def test_settings_that_break_a_rule_are_refused_with_their_fields() -> None:
    course = new_course()
    bad = {
        "slug": "q",
        "title": "Q",
        "opens_at": T0,
        "closes_at": T0,
        "time_limit": timedelta(0),
        "grace_period": timedelta(seconds=-1),
        "attempts_allowed": 1001,
        "penalty_per_attempt": 1.5,
        "release_policy": "never",
        "grading_method": "best-of-three",
    }
    with pytest.raises(QuizInvalid) as refused:
        quiz_create(course=course, data=bad, slots=[])
    assert set(refused.value.fields) == set(bad) - {"slug", "title", "opens_at"}
    assert not Quiz.objects.filter(course=course).exists()


def test_an_update_is_checked_against_the_settings_it_keeps() -> None:
    quiz = quiz_create(
        course=new_course(), data={"slug": "q", "title": "Q", "opens_at": T0}, slots=[]
    )
    with pytest.raises(QuizInvalid) as refused:
        quiz_update(quiz=quiz, data={"closes_at": T0 - timedelta(hours=1)}, slots=None)
    assert set(refused.value.fields) == {"closes_at"}
    quiz.refresh_from_db()
    assert quiz.closes_at is None


def test_a_taken_slug_is_refused_and_an_update_keeps_the_quiz() -> None:
    course = new_course()
    quiz = quiz_create(course=course, data={"slug": "q", "title": "Q"}, slots=[])
    with pytest.raises(SlugTaken):
        quiz_create(course=course, data={"slug": "q", "title": "Again"}, slots=[])
    updated = quiz_update(quiz=quiz, data={"title": "Renamed"}, slots=None)
    assert updated.pk == quiz.pk
    assert Quiz.objects.get(pk=quiz.pk).title == "Renamed"
    assert Quiz.objects.filter(course=course).count() == 1


def test_slots_from_another_course_or_an_empty_pool_are_refused_and_nothing_is_written() -> None:
    course, other = new_course(), new_course()
    foreign = question(other, SINGLE)
    new_topic(course=course, slug="empty-topic")
    for slots in (
        [SlotSpec(question=foreign.pk)],
        [SlotSpec(pool_topic=new_topic(course=other).slug)],
        [SlotSpec(pool_topic="empty-topic")],
        [SlotSpec(pool_tag="nothing-tagged-so", draw_count=1)],
        [SlotSpec(pool_difficulty="legendary")],
        [SlotSpec()],
    ):
        with pytest.raises(QuizInvalid):
            quiz_create(course=course, data={"slug": "q", "title": "Q"}, slots=slots)
    assert not Quiz.objects.filter(course=course).exists()


def test_once_attempted_the_slots_stay_but_the_same_slots_and_settings_may_be_saved() -> None:
    course = new_course()
    first, second = question(course, SINGLE), question(course, NUMERIC)
    quiz = quiz_create(
        course=course, data={"slug": "q", "title": "Q"}, slots=[SlotSpec(question=first.pk)]
    )
    submitted_attempt(quiz, new_user(), {})
    with pytest.raises(QuizLocked):
        quiz_update(quiz=quiz, data={}, slots=[SlotSpec(question=second.pk)])
    quiz_update(quiz=quiz, data={"title": "Week 1"}, slots=[SlotSpec(question=first.pk)])
    quiz.refresh_from_db()
    assert quiz.title == "Week 1"
    assert [s.question_id for s in quiz.slots.all()] == [first.pk]

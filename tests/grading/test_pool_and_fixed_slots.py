"""A pool never draws a question its quiz also holds as a fixed question, wherever the
fixed slot stands: else a student could be asked the same question twice."""

import pytest

from grading.services.attempts import attempt_draw
from quizbank.errors import QuizInvalid
from quizbank.services.quiz_write import SlotSpec, quiz_update
from tests.grading.content import TRUE_FALSE
from tests.grading.factories import new_quiz, new_topic, question

pytestmark = pytest.mark.django_db


def test_a_pool_before_a_fixed_slot_never_draws_the_fixed_question() -> None:
    # _pick only left out questions of slots before the pool, so a pool in slot 0 drew the
    # question of slot 1 about half the time.
    quiz = new_quiz()
    topic = new_topic(course=quiz.course)
    fixed = question(quiz.course, {**TRUE_FALSE, "title": "Leaves"}, topic=topic)
    question(quiz.course, {**TRUE_FALSE, "title": "Graphs"}, topic=topic)
    pool = SlotSpec(pool_topic=topic.slug, draw_count=1)
    quiz_update(quiz=quiz, data={}, slots=[pool, SlotSpec(question=fixed.pk)])

    draws = [[d.version.question_id for d in attempt_draw(quiz=quiz, seed=s)] for s in range(20)]

    assert all(len(set(ids)) == len(ids) == 2 for ids in draws), draws


def test_a_pool_that_needs_the_fixed_question_to_fill_its_draw_is_refused() -> None:
    # The pool holds two questions, one of them fixed in slot 1: it can draw one, not two.
    quiz = new_quiz()
    topic = new_topic(course=quiz.course)
    fixed = question(quiz.course, {**TRUE_FALSE, "title": "Leaves"}, topic=topic)
    question(quiz.course, {**TRUE_FALSE, "title": "Graphs"}, topic=topic)
    slots = [SlotSpec(pool_topic=topic.slug, draw_count=2), SlotSpec(question=fixed.pk)]

    with pytest.raises(QuizInvalid) as refused:
        quiz_update(quiz=quiz, data={}, slots=slots)

    assert refused.value.fields == {
        "slots[0].draw_count": [
            "At most 1: the pool holds 1 question beside the quiz's fixed questions."
        ]
    }
    quiz_update(quiz=quiz, data={}, slots=[SlotSpec(pool_topic=topic.slug, draw_count=1), slots[1]])

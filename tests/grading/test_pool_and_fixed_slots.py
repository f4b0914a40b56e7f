"""A pool never draws a question its quiz also holds as a fixed question, wherever the
fixed slot stands: else a student could be asked the same question twice."""

import pytest

from grading.services.attempts import attempt_draw
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

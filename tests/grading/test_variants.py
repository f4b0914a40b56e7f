"""Parameterised questions and reproducible draws and shuffles."""

from typing import Any

import pytest
from django.utils import timezone

from grading.api.presenters import student_question
from grading.errors import VariantGenerationFailed
from grading.models import Response
from grading.services.attempts import attempt_draw, attempt_start
from grading.services.responses import attempt_submit, response_autosave
from grading.services.variants import variant_generate
from quizbank.models import QuizSlot, Role
from tests.grading.content import NUMERIC, SINGLE
from tests.grading.factories import add_slots, member, new_course, new_quiz, new_topic
from tests.grading.factories import question as make_question

GENERATOR = (
    "def generate(rng):\n"
    "    a = rng.randint(2, 9)\n"
    "    x = rng.randint(1, 5)\n"
    "    return {'params': {'a': a, 'x': x}, 'answers': {'slope': 2 * x + a}}\n"
)
PARAM_NUMERIC: dict[str, Any] = {
    **NUMERIC,
    "prompt": "dy/dx of x^2 + {{a}}x + 2 at x = {{x}}?",
    "answers": [{"value": "{{slope}}", "tolerance": 0.001, "feedback": "2x + {{a}}."}],
    "files": {"generate.py": GENERATOR},
}


# A worker runs the generator; these unit tests run its task inline.
@pytest.mark.usefixtures("celery_eager")
def test_a_parameterised_question_is_generated_once_stored_and_scored(db: None) -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, make_question(course, PARAM_NUMERIC))
    attempt = attempt_start(quiz=quiz, user=member(course, Role.STUDENT), now=timezone.now())
    response = Response.objects.get(attempt=attempt)
    a, x = response.params["a"], response.params["x"]
    assert response.generated_answers == {"slope": 2 * x + a}
    shown = student_question(response)["prompt_html"]
    assert f"x^2 + {a}x + 2 at x = {x}?" in shown

    response_autosave(
        attempt=attempt, position=0, answer={"value": 2 * x + a}, version=0, now=timezone.now()
    )
    attempt_submit(attempt=attempt, now=timezone.now())
    response.refresh_from_db()
    assert response.score == 1.0
    assert response.feedback["answer"] == f"2x + {a}."


@pytest.mark.usefixtures("celery_eager")
def test_the_same_seed_generates_the_same_variant(db: None) -> None:
    first = variant_generate(content=PARAM_NUMERIC, seed=1234)
    assert variant_generate(content=PARAM_NUMERIC, seed=1234) == first
    seen = {variant_generate(content=PARAM_NUMERIC, seed=s)[0]["a"] for s in range(8)}
    assert len(seen) > 1


@pytest.mark.usefixtures("celery_eager")
def test_a_broken_generator_is_a_clear_error(db: None) -> None:
    broken = {**PARAM_NUMERIC, "files": {"generate.py": "def generate(rng):\n    return 1 / 0\n"}}
    with pytest.raises(VariantGenerationFailed, match="generator failed"):
        variant_generate(content=broken, seed=1)


def test_draws_and_shuffles_are_reproducible_from_the_attempt_seed(db: None) -> None:
    course = new_course()
    topic = new_topic(course=course)
    pool = [make_question(course, {**SINGLE, "tags": ["ranks"]}, topic=topic) for _ in range(6)]
    quiz = new_quiz(course=course, shuffle_questions=True, shuffle_choices=True)
    add_slots(quiz, pool[0])
    QuizSlot.objects.create(quiz=quiz, position=1, draw_count=3, pool_tag="ranks")

    def summary(seed: int) -> list[tuple[int, list[int]]]:
        return [(d.version.pk, d.choice_order) for d in attempt_draw(quiz=quiz, seed=seed)]

    assert summary(42) == summary(42)
    drawn = [pk for pk, _ in summary(42)]
    assert len(drawn) == len(set(drawn)) == 4  # the fixed question is not drawn again
    variety = {tuple(pk for pk, _ in summary(seed)) for seed in range(10)}
    orders = {tuple(order) for seed in range(10) for _, order in summary(seed)}
    assert len(variety) > 1
    assert len(orders) > 1

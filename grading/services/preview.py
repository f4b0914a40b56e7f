"""A whole quiz as a student would get it, for its authors and examiners: drawn with a seed
like an attempt (pools, question order, shuffled choices, variants), and never saved."""

from dataclasses import dataclass

from grading.models import Response
from grading.services.attempts import attempt_draw, drawn_responses
from quizbank.models import Quiz
from quizbank.selectors import fixed_question_ids, pool_drawable, quiz_slots


@dataclass(frozen=True)
class PreviewQuestion:
    response: Response  # never saved: no attempt holds it
    # How many questions its pool slot draws from (the quiz's fixed questions left out);
    # None: a fixed question.
    pool_size: int | None


def quiz_preview(*, quiz: Quiz, seed: int) -> list[PreviewQuestion]:
    """The questions an attempt with `seed` would draw, in its order; writes nothing."""
    slots = quiz_slots(quiz)
    fixed = fixed_question_ids(slot.question_id for slot in slots)
    pool_sizes = {s.position: len(pool_drawable(s, fixed)) for s in slots if s.is_pool}
    responses = drawn_responses(attempt_draw(quiz=quiz, seed=seed), seed)
    return [PreviewQuestion(r, pool_sizes.get(r.slot_position)) for r in responses]

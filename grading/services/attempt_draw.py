"""Draw an attempt's questions from its seed: same seed, same questions and order."""

import random
from dataclasses import dataclass
from decimal import Decimal

from quizbank.models import Question, QuestionVersion, Quiz
from quizbank.selectors import quiz_slots, slot_pool

CHOICE_TYPES = frozenset({"single_choice", "multiple_choice"})


@dataclass(frozen=True)
class Drawn:
    slot_position: int
    version: QuestionVersion
    points: Decimal
    choice_order: list[int]


def _rng(seed: int, *parts: object) -> random.Random:
    return random.Random(":".join([str(seed), *map(str, parts)]))  # noqa: S311 - reproducible draws, not secrets


def _pick(quiz: Quiz, seed: int) -> list[tuple[int, Question]]:
    picked: list[tuple[int, Question]] = []
    used: set[int] = set()
    for slot in quiz_slots(quiz):
        if slot.question is not None:
            candidates, count = [slot.question], 1
        else:
            candidates = [q for q in slot_pool(slot) if q.pk not in used]
            count = min(slot.draw_count, len(candidates))
            candidates = _rng(seed, "slot", slot.position).sample(candidates, count)
        for question in candidates:
            if question.current_version is not None:
                used.add(question.pk)
                picked.append((slot.position, question))
    return picked


def _choice_order(quiz: Quiz, seed: int, position: int, version: QuestionVersion) -> list[int]:
    content = version.content
    if content.get("type") not in CHOICE_TYPES:
        return []
    order = list(range(len(content.get("choices", []))))
    if quiz.shuffle_choices and content.get("shuffle", True):
        _rng(seed, "choices", position, version.pk).shuffle(order)
    return order


def attempt_draw(*, quiz: Quiz, seed: int) -> list[Drawn]:
    """The questions of a new attempt, in the order the student will see them."""
    picked = _pick(quiz, seed)
    if quiz.shuffle_questions:
        _rng(seed, "order").shuffle(picked)
    drawn: list[Drawn] = []
    for slot_position, question in picked:
        version = question.current_version
        assert version is not None  # noqa: S101 (filtered in _pick)
        order = _choice_order(quiz, seed, slot_position, version)
        points = Decimal(str(version.content.get("points", question.points)))
        drawn.append(Drawn(slot_position, version, points, order))
    return drawn

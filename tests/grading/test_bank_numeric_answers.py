"""The fixture bank's numeric questions: a common wrong method does not reach the key."""

from typing import Any

import pytest
import yaml

from grading.scoring import score_answer
from tests.quizbank.conftest import FIXTURE_BANK

GRAD_TWICE = "autograd/grad-accumulates-twice.yaml"


def question(path: str) -> dict[str, Any]:
    content: dict[str, Any] = yaml.safe_load((FIXTURE_BANK / path).read_text(encoding="utf-8"))
    return content


def test_two_backward_passes_earn_marks_for_twice_the_derivative() -> None:
    # x = 3, y = 3x^2: dy/dx = 18 on each pass, accumulated to 36.
    assert score_answer(question(GRAD_TWICE), {"value": "36"}).score == 1.0


@pytest.mark.parametrize(
    "value",
    [
        "18",  # .grad overwritten instead of accumulated
        "54",  # y's value (27) added twice: the value mistaken for the derivative
    ],
)
def test_two_backward_passes_wrong_methods_score_zero_with_feedback(value: str) -> None:
    verdict = score_answer(question(GRAD_TWICE), {"value": value})
    assert verdict.score == 0.0
    assert verdict.feedback["answer"]

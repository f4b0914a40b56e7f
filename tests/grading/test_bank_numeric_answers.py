"""The fixture bank's numeric questions: a common wrong method does not reach the key, and it
earns nothing, with feedback naming the mistake."""

from typing import Any

import pytest
import yaml

from grading.scoring import score_answer
from tests.quizbank.conftest import FIXTURE_BANK

# (question, its key, wrong answers a common mistake gives)
KEYS = [
    # x = 3, y = 3x^2: dy/dx = 18 on each pass, accumulated to 36; 18 is .grad overwritten,
    # 54 is y's value (27) added twice, the value mistaken for the derivative.
    ("autograd/grad-accumulates-twice.yaml", "36", ["18", "54"]),
    # x = 3, y = x^4: 4x^3 = 108; 27 is 3x^2 (three factors), 81 is y itself, 405 is 5x^4
    # (five factors). At x = 2, 4x^3 and x^5 were both 32.
    ("computation-graphs/loop-power-derivative.yaml", "108", ["27", "81", "405"]),
    # a - y with y = 0; -0.268941 is y - a, the sign slip.
    ("backpropagation/logistic-bias-gradient.yaml", "0.268941", ["-0.268941", "0.196612"]),
]


def question(path: str) -> dict[str, Any]:
    content: dict[str, Any] = yaml.safe_load((FIXTURE_BANK / path).read_text(encoding="utf-8"))
    return content


@pytest.mark.parametrize(("path", "key", "wrong"), KEYS)
def test_the_key_earns_full_marks_and_no_common_mistake_reaches_it(
    path: str, key: str, wrong: list[str]
) -> None:
    assert score_answer(question(path), {"value": key}).score == 1.0
    for value in wrong:
        verdict = score_answer(question(path), {"value": value})
        assert verdict.score == 0.0, value
        assert verdict.feedback["answer"], value

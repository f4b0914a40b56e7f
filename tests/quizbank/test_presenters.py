"""One allow-list of what a student sees of a question, for the API and the preview alike."""

from typing import Any

import pytest

from quizbank.presenters import student_fields

SECRET = "SECRET-VALUE"
CONTENT: dict[str, dict[str, Any]] = {
    "single_choice": {
        "type": "single_choice",
        "title": "Pick",
        "choices": [
            {"text": "a {{n}}", "correct": True, "feedback": SECRET},
            {"text": "b", "correct": False, "feedback": SECRET},
        ],
        "explanation": SECRET,
    },
    "numeric": {"type": "numeric", "title": "N", "unit": "s", "answer": SECRET},
    "code": {
        "type": "code",
        "title": "C",
        "entry_point": "f",
        "starter_code": "def f(x):\n    ...",
        "reference": SECRET,
        "cases": [{"name": SECRET}],
    },
    "viva": {"type": "viva", "title": "V", "mode": "oral", "model_answer": SECRET},
}


@pytest.mark.parametrize("qtype", sorted(CONTENT))
def test_no_answer_or_examiner_field_reaches_a_student(qtype: str) -> None:
    shown = student_fields(CONTENT[qtype])
    assert SECRET not in repr(shown)
    assert shown["type"] == qtype


def test_choices_follow_the_shuffled_order_with_the_variant_filled_in() -> None:
    shown = student_fields(
        CONTENT["single_choice"], choice_order=[1, 0], fill=lambda t: t.replace("{{n}}", "3")
    )
    # Ids are places on the page, never the author's indexes.
    assert [(c["id"], c["text"]) for c in shown["choices"]] == [(0, "b"), (1, "a 3")]
    assert "correct" not in shown["choices"][0]

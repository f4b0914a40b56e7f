"""Scoring rules by question type (pure functions, no database)."""

from typing import Any

import pytest

from grading.scoring import score_answer
from grading.scoring.numeric import parse_number
from tests.grading.content import MULTIPLE, NUMERIC, SHORT_TEXT, SINGLE, TRUE_FALSE


def score(content: dict[str, Any], answer: dict[str, Any]) -> float:
    return score_answer(content, answer).score


def test_single_choice_gives_full_marks_only_for_the_correct_choice() -> None:
    assert score(SINGLE, {"choice": 0}) == 1.0
    assert score(SINGLE, {"choice": 1}) == 0.0


def test_single_choice_feedback_is_the_picked_choices_feedback() -> None:
    verdict = score_answer(SINGLE, {"choice": 1})
    assert verdict.feedback["choices"] == [{"choice": 1, "feedback": "That drops the batch axis."}]


@pytest.mark.parametrize(
    ("picked", "expected"),
    [([0, 2], 1.0), ([0], 0.5), ([0, 1], 0.0), ([1], 0.0), ([0, 1, 2], 0.5), ([], 0.0)],
)
def test_partial_multiple_choice_adds_and_subtracts_one_kth(
    picked: list[int], expected: float
) -> None:
    assert score(MULTIPLE, {"choices": picked}) == pytest.approx(expected)


def test_all_or_nothing_multiple_choice_needs_the_exact_set() -> None:
    strict = {**MULTIPLE, "scoring": "all_or_nothing"}
    assert score(strict, {"choices": [2, 0]}) == 1.0
    assert score(strict, {"choices": [0]}) == 0.0


def test_true_false_scores_and_gives_the_matching_feedback() -> None:
    assert score(TRUE_FALSE, {"value": True}) == 1.0
    wrong = score_answer(TRUE_FALSE, {"value": False})
    assert wrong.score == 0.0
    assert wrong.feedback == {"answer": "Leaves have no grad_fn."}


@pytest.mark.parametrize(
    ("value", "expected"), [(11, 1.0), (11.0009, 1.0), ("11.0005", 1.0), (11.01, 0.0), (6, 0.0)]
)
def test_numeric_answers_match_within_absolute_tolerance(value: object, expected: float) -> None:
    assert score(NUMERIC, {"value": value}) == expected


@pytest.mark.parametrize(
    "raw",
    [10**400, -(10**101), "1" + "0" * 400, "1e400", "nan", "-inf", float("inf"), "1" * 101],
)
def test_numeric_parse_refuses_huge_or_non_finite_numbers_with_a_value_error(raw: object) -> None:
    with pytest.raises(ValueError, match="number"):
        parse_number(raw)


@pytest.mark.parametrize("raw", [10**100, -1e100, "1e100", " -1E100 "])
def test_numeric_parse_accepts_numbers_up_to_the_bound(raw: object) -> None:
    assert abs(parse_number(raw)) == 1e100


def test_numeric_first_match_wins_and_its_feedback_is_given() -> None:
    content = {
        "type": "numeric",
        "answers": [
            {
                "value": 10,
                "tolerance": 0.1,
                "tolerance_mode": "relative",
                "fraction": 0.5,
                "feedback": "close",
            },  # fmt: skip
            {"value": 10.5, "fraction": 1.0},
        ],
    }
    verdict = score_answer(content, {"value": 10.5})
    assert verdict.score == 0.5
    assert verdict.feedback == {"answer": "close"}
    assert score(content, {"value": 11.5}) == 0.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [("grad_fn", 1.0), ("  GRAD_FN ", 1.0), (".grad_fn", 1.0), ("grad", 0.0), ("grad fn", 0.0)],
)
def test_short_text_ignores_case_and_outer_spaces_and_accepts_the_regex(
    text: str, expected: float
) -> None:
    assert score(SHORT_TEXT, {"text": text}) == expected


def test_short_text_case_sensitive_and_whitespace_ignore_rules() -> None:
    content = {**SHORT_TEXT, "case_sensitive": True, "whitespace": "ignore"}
    assert score(content, {"text": "grad _fn"}) == 1.0
    assert score(content, {"text": "Grad_fn"}) == 0.0


def test_general_feedback_is_added_to_every_verdict() -> None:
    verdict = score_answer({**SINGLE, "general_feedback": "Count the axes."}, {"choice": 2})
    assert verdict.feedback["general"] == "Count the axes."

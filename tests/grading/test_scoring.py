"""Scoring rules by question type (pure functions, no database)."""

from typing import Any

import pytest

from grading.scoring import Verdict, score_answer
from grading.scoring.numeric import parse_number
from grading.scoring.verdict import clamp
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
            },
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


def test_single_choice_gives_no_marks_and_no_feedback_for_a_choice_that_does_not_exist() -> None:
    for picked in (3, -1):
        assert score_answer(SINGLE, {"choice": picked}) == Verdict(0.0, {"choices": []})


def test_the_first_choice_counts_and_shows_its_feedback() -> None:
    assert score_answer(SINGLE, {"choice": 0}) == Verdict(
        1.0, {"choices": [{"choice": 0, "feedback": "Three axes."}]}
    )


def test_multiple_choice_feedback_lists_only_picked_choices_that_have_feedback() -> None:
    content = {
        **MULTIPLE,
        "choices": [
            {"text": "a", "correct": True, "feedback": "Yes, a."},
            {"text": "b"},
            {"text": "c", "correct": True, "feedback": "Yes, c."},
        ],
    }
    expected = {"choices": [{"choice": 0, "feedback": "Yes, a."}]}
    assert score_answer(content, {"choices": [0, 1, 5]}) == Verdict(0.0, expected)
    strict = {**content, "scoring": "all_or_nothing"}
    assert score_answer(strict, {"choices": [1, 0]}) == Verdict(0.0, expected)


def test_multiple_choice_without_a_scoring_rule_is_all_or_nothing() -> None:
    content = {key: value for key, value in MULTIPLE.items() if key != "scoring"}
    assert score(content, {"choices": [0]}) == 0.0
    assert score(content, {"choices": [0, 2]}) == 1.0


def test_partial_multiple_choice_with_one_correct_choice_gives_full_marks_for_it() -> None:
    content = {**MULTIPLE, "choices": [{"text": "a", "correct": True}, {"text": "b"}]}
    assert score(content, {"choices": [0]}) == 1.0
    assert score(content, {"choices": [0, 1]}) == 0.0


def test_true_false_shows_the_feedback_of_the_answer_given_and_none_when_there_is_none() -> None:
    assert score_answer(TRUE_FALSE, {"value": True}) == Verdict(1.0, {"answer": "Right."})
    bare = {"type": "true_false", "answer": False}
    assert score_answer(bare, {"value": False}) == Verdict(1.0, {})
    assert score_answer(bare, {"value": True}) == Verdict(0.0, {})


def test_general_feedback_keeps_the_score_and_the_rules_feedback() -> None:
    verdict = score_answer({**SINGLE, "general_feedback": "Count the axes."}, {"choice": 0})
    assert verdict == Verdict(
        1.0, {"choices": [{"choice": 0, "feedback": "Three axes."}], "general": "Count the axes."}
    )


@pytest.mark.parametrize(
    ("qtype", "answer"),
    [
        ("single_choice", {"choice": 0}),
        ("multiple_choice", {"choices": [0]}),
        ("numeric", {"value": 1}),
        ("short_text", {"text": "a"}),
    ],
)
def test_a_question_without_choices_or_answers_gives_no_marks(
    qtype: str, answer: dict[str, Any]
) -> None:
    assert score({"type": qtype}, answer) == 0.0


def test_clamp_keeps_a_share_within_zero_and_one() -> None:
    assert [clamp(v) for v in (-0.5, 0.0, 0.25, 1.0, 1.5)] == [0.0, 0.0, 0.25, 1.0, 1.0]

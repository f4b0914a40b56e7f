"""Numeric answers: what counts as a number, the tolerance's edges and the rounding slack."""

from typing import Any

import pytest

from grading.errors import InvalidAnswer
from grading.scoring import Verdict, score_answer
from grading.scoring.numeric import number_text_problem, parse_number
from grading.services.responses import answer_validate


def numeric(*answers: dict[str, Any]) -> dict[str, Any]:
    return {"type": "numeric", "answers": list(answers)}


def score(content: dict[str, Any], value: object) -> float:
    return score_answer(content, {"value": value}).score


def test_an_exact_answer_counts_at_zero_tolerance_and_a_near_one_does_not() -> None:
    exact = numeric({"value": 11, "tolerance": 0})
    assert score(exact, 11) == 1.0
    assert score(exact, "11.0") == 1.0
    assert score(exact, 11.001) == 0.0


def test_an_answer_exactly_at_the_tolerance_counts() -> None:
    content = numeric({"value": 10, "tolerance": 0.5})
    assert score(content, 10.5) == 1.0
    assert score(content, 9.5) == 1.0
    assert score(content, 10.6) == 0.0


def test_a_relative_tolerance_is_a_share_of_the_value() -> None:
    content = numeric({"value": 200, "tolerance": 0.01, "tolerance_mode": "relative"})
    assert score(content, 202) == 1.0
    assert score(content, 202.5) == 0.0


def test_rounding_slack_is_a_trillionth_of_the_value_and_at_least_a_trillionth() -> None:
    at_zero = numeric({"value": 0})
    assert score(at_zero, 1e-12) == 1.0
    assert score(at_zero, 1.5e-12) == 0.0
    large = numeric({"value": 1e9 + 0.1})
    assert score(large, "1000000000.1000001") == 1.0  # one unit in the last place
    assert score(large, 1e9 + 0.2) == 0.0


def test_a_matching_answer_without_feedback_gives_empty_feedback_and_a_wrong_one_none() -> None:
    content = numeric({"value": 3})
    assert score_answer(content, {"value": 3}) == Verdict(1.0, {"answer": ""})
    assert score_answer(content, {"value": 4}) == Verdict(0.0, {})


def test_a_decimal_comma_is_read_as_a_point() -> None:
    assert parse_number(" 3,5 ") == 3.5
    assert score(numeric({"value": 3.5}), "3,5") == 1.0


@pytest.mark.parametrize("raw", ["1,000", "-12,500", "1,000,000", "1,000.5", "1.000,5"])
def test_a_comma_that_could_separate_thousands_is_refused_when_saved(raw: str) -> None:
    assert number_text_problem(raw) is not None
    with pytest.raises(InvalidAnswer) as refused:
        answer_validate(content=numeric({"value": 1000}), answer={"value": raw})
    assert refused.value.fields == {"answer.value": [refused.value.message]}


@pytest.mark.parametrize("raw", ["1,5", "0,25", "12,3456", "1000", "1.000", 1000])
def test_a_number_read_one_way_only_is_kept(raw: object) -> None:
    assert number_text_problem(raw) is None
    assert answer_validate(content=numeric({"value": 1000}), answer={"value": raw})


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (True, "a number is required, not true/false"),
        (None, "a number is required"),
        ("1_3", "a number is written without underscores"),
        ("inf", r"the number must be finite and at most 1e\+100 in size"),
        (float("nan"), r"the number must be finite and at most 1e\+100 in size"),
    ],
)
def test_what_is_not_a_finite_number_is_refused_with_a_reason(raw: object, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        parse_number(raw)


def in_unit(unit: str, value: float) -> dict[str, Any]:
    return {**numeric({"value": value}), "unit": unit}


@pytest.mark.parametrize(
    ("unit", "typed", "value"),
    [
        ("cm", "3.5 cm", 3.5),
        ("cm", " 3,5cm ", 3.5),
        ("s", "1e-3 s", 0.001),
        ("MiB", "64 MiB", 64),
        ("%", "-50%", -50),
    ],
)
def test_a_number_typed_with_the_questions_own_unit_is_kept_and_scored_as_the_number(
    unit: str, typed: str, value: float
) -> None:
    """The quiz page asks for the answer "(in cm)": "3.5 cm" is that answer."""
    content = in_unit(unit, value)
    assert answer_validate(content=content, answer={"value": typed}) == {"value": typed}
    assert score(content, typed) == 1.0


@pytest.mark.parametrize(
    ("unit", "typed", "said"),
    [
        ("s", "12 ms", "Type only the number, in s: '12 ms' has 'ms' after it."),
        ("MiB", "64 MB", "Type only the number, in MiB: '64 MB' has 'MB' after it."),
        ("cm", "3.5 CM", "Type only the number, in cm: '3.5 CM' has 'CM' after it."),
        ("", "3.5 cm", "Type only the number, without a unit: '3.5 cm' has 'cm' after it."),
        ("", "1e-3 s", "Type only the number, without a unit: '1e-3 s' has 's' after it."),
        ("cm", "1,000 cm", "Not one number: 1,000 could be read as a whole number"),
    ],
)
def test_a_number_with_another_unit_is_refused_when_saved_saying_which_unit(
    unit: str, typed: str, said: str
) -> None:
    """A unit is never converted: 12 ms is not read as 12 s, nor 0.012."""
    with pytest.raises(InvalidAnswer) as refused:
        answer_validate(content=in_unit(unit, 12), answer={"value": typed})
    assert refused.value.message.startswith(said)
    assert refused.value.fields == {"answer.value": [refused.value.message]}


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("1e", "'1e' is not a number: write digits"),
        ("1.2.3", "'1.2.3' is not a number: write digits"),
        ("1_3 s", "A number is written without underscores."),
        ("cm 3.5", "'cm 3.5' is not a number: write digits"),
    ],
)
def test_what_is_no_number_and_unit_keeps_its_own_reason(typed: str, said: str) -> None:
    with pytest.raises(InvalidAnswer) as refused:
        answer_validate(content=in_unit("s", 1), answer={"value": typed})
    assert refused.value.message.startswith(said)


@pytest.mark.parametrize(
    ("unit", "typed"),
    [
        ("", "1e101"),
        ("", "-2.5E+300"),
        ("cm", "1e400"),
        ("", "1" + "0" * 101),
        ("s", "9" * 400),
    ],
)
def test_a_number_too_large_is_refused_as_too_large_not_as_one_with_a_unit(
    unit: str, typed: str
) -> None:
    """ "1e101" is a number beyond the bound, not the number 1 with the unit "e101"."""
    with pytest.raises(InvalidAnswer) as refused:
        answer_validate(content=in_unit(unit, 1), answer={"value": typed})
    said = "The number is too large: it must be at most 1e+100 in size."
    assert refused.value.message == said
    assert refused.value.fields == {"answer.value": [said]}

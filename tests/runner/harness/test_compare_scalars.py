"""Comparing plain values: numbers at their tolerance, NaN and infinities, kinds, containers."""

from __future__ import annotations

import json
import math

import pytest

from runner.harness.compare import compare
from runner.harness.outcome import Outcome, Tolerance

STRICT = Tolerance(rtol=0.0, atol=1e-5)
PROMOTABLE = Tolerance(rtol=0.0, atol=1e-5, dtype="promotable")


def failure(outcome: Outcome) -> str:
    """The message of an outcome that must be a failure."""
    assert outcome.ok is False
    return outcome.message


def test_equal_numbers_pass_with_no_error() -> None:
    assert compare(2.0, 2.0, STRICT) == Outcome(True, max_abs=0.0, max_rel=0.0)
    assert compare(3, 3, STRICT) == Outcome(True, max_abs=0.0, max_rel=0.0)


def test_a_number_exactly_at_the_tolerance_passes_and_reports_its_errors() -> None:
    assert compare(1.5, 1.0, Tolerance(rtol=0.0, atol=0.5)) == Outcome(
        True, max_abs=0.5, max_rel=0.5
    )


def test_rtol_scales_with_the_expected_value() -> None:
    assert compare(10.5, 10.0, Tolerance(rtol=0.1, atol=0.0)).ok is True  # 1.0 allowed
    outcome = compare(12.0, 10.0, Tolerance(rtol=0.1, atol=0.0))
    assert outcome == Outcome(
        False,
        "the value is off by 2, more than atol 0 + rtol 0.1 × |expected| allows",
        max_abs=2.0,
        max_rel=0.2,
        detail="got 12, expected 10",
    )


def test_an_expected_zero_gives_a_relative_error_of_zero_not_infinity() -> None:
    close = compare(1e-9, 0.0, Tolerance(rtol=0.0, atol=1e-8))
    assert (close.ok, close.max_abs, close.max_rel) == (True, 1e-9, 0.0)
    off = compare(0.5, 0.0, STRICT)
    assert (off.ok, off.max_abs, off.max_rel) == (False, 0.5, 0.0)
    json.dumps([off.max_abs, off.max_rel], allow_nan=False)


def test_an_infinity_fails_unless_it_is_the_same_infinity_and_reports_no_error() -> None:
    inf = math.inf
    assert compare(inf, inf, STRICT).ok is True
    assert compare(inf, 3.0, STRICT) == Outcome(False, "the value is inf, expected 3.0")
    assert compare(-inf, inf, STRICT) == Outcome(False, "the value is -inf, expected inf")
    # Two finite numbers too far apart to subtract fail the same way.
    assert compare(1e308, -1e308, STRICT) == Outcome(False, "the value is 1e+308, expected -1e+308")


def test_a_nan_number_matches_only_a_nan_and_only_with_equal_nan() -> None:
    nan, equal_nan = math.nan, Tolerance(equal_nan=True)
    assert compare(nan, nan, equal_nan) == Outcome(True)
    assert failure(compare(nan, nan, STRICT)) == "the value is nan, expected nan"
    assert failure(compare(nan, 1.0, equal_nan)) == "the value is nan, expected 1.0"
    assert failure(compare(1.0, nan, equal_nan)) == "the value is 1.0, expected nan"


@pytest.mark.parametrize(
    ("got", "expected", "message"),
    [
        (1, [1], "the value is an int, expected a list"),
        ([1], {"a": 1}, "the value is a list, expected a dict"),
        (None, "sum", "the value is None, expected a str"),
        ("1", 1, "the value is a str, expected an int"),
        (True, 1, "the value is a bool, expected an int"),
    ],
)
def test_a_value_of_another_kind_fails_naming_both_kinds(
    got: object, expected: object, message: str
) -> None:
    assert failure(compare(got, expected, STRICT)) == message
    assert failure(compare(got, expected, PROMOTABLE)) == message


def test_equal_strings_pass_and_different_ones_fail() -> None:
    assert compare("mean", "mean", STRICT) == Outcome(True)
    assert failure(compare("mean", "sum", STRICT)) == "the value is 'mean', expected 'sum'"


def test_long_values_are_cut_to_forty_characters_in_the_message() -> None:
    fits, cut = "a" * 38, "a" * 39  # their reprs are 40 and 41 characters long
    assert failure(compare(fits, "b", STRICT)) == f"the value is '{fits}', expected 'b'"
    assert failure(compare(cut, "b", STRICT)) == f"the value is '{'a' * 36}..., expected 'b'"


def test_containers_fail_on_length_or_keys_and_pass_when_every_item_passes() -> None:
    assert (
        failure(compare((1, 2), (1, 2, 3), PROMOTABLE)) == "the value tuple has 2 items, expected 3"
    )
    assert failure(compare({"a": 1}, {"a": 1, "b": 2}, STRICT)) == (
        "the value has keys ['a'], expected ['a', 'b']"
    )
    assert compare([1.0, {"k": "v"}], [1.0, {"k": "v"}], STRICT) == Outcome(
        True, max_abs=0.0, max_rel=0.0
    )


def test_numbers_a_hair_apart_are_shown_with_the_digits_that_tell_them_apart() -> None:
    outcome = compare(math.nextafter(0.1, 1.0), 0.1, Tolerance(rtol=0.0, atol=0.0))
    got, expected = outcome.detail.removeprefix("got ").split(", expected ")
    assert (float(got), float(expected)) == (math.nextafter(0.1, 1.0), 0.1)


def test_a_list_of_another_length_is_named_as_a_list_even_when_its_label_is_plural() -> None:
    losses = failure(compare([1.0, 2.0], [1.0] * 21, STRICT, "the losses"))
    assert losses == "the losses list has 2 items, expected 21"
    assert failure(compare([1.0], [1.0, 2.0], STRICT, "the losses")).startswith(
        "the losses list has 1 item,"
    )

"""Comparison messages, one test per kind of difference."""

from __future__ import annotations

import math

import pytest
import torch

from runner.harness.compare import compare
from runner.harness.compare_tensors import compare_tensors
from runner.harness.outcome import Outcome, Tolerance
from runner.harness.payload import Rejected, TensorValue


def tv(data: object, dtype: torch.dtype = torch.float32, device: str = "cpu") -> TensorValue:
    return TensorValue(torch.tensor(data, dtype=dtype), False, True, device, "torch.Tensor")


STRICT = Tolerance(rtol=0.0, atol=1e-5)


def failure(outcome: Outcome) -> str:
    """The message of an outcome that must be a failure (a message alone proves nothing)."""
    assert outcome.ok is False
    return outcome.message


def test_it_reports_a_shape_difference_like_the_issue_says() -> None:
    outcome = compare(tv([1.0, 2, 3, 4]), tv([[0.0] * 3] * 4), STRICT)
    assert outcome.ok is False
    assert outcome.message == "the value has shape (4,), expected (4, 3)"


def test_it_reports_the_worst_value_with_its_index() -> None:
    expected = [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    got = [[0.0, 0.0, 0.0], [0.0, 0.0, 1.31]]
    outcome = compare(tv(got), tv(expected), STRICT)
    assert outcome.ok is False
    assert (
        outcome.message == "the value differs at index (1, 2) by 0.31, more than atol 1e-05 allows"
    )
    assert outcome.max_abs == pytest.approx(0.31, rel=1e-5)
    assert outcome.detail == "got 1.31, expected 1"


def test_it_names_rtol_in_the_message_when_it_is_used() -> None:
    outcome = compare(tv([1.0, 2.0]), tv([1.0, 2.5]), Tolerance(rtol=1e-3, atol=1e-8))
    assert outcome.message.startswith(
        "the value differs at index (1,) by 0.5, more than atol 1e-08 + rtol 0.001"
    )
    assert outcome.message.endswith("allows")


def test_values_within_tolerance_pass_and_report_their_errors() -> None:
    outcome = compare(tv([1.0, 2.0]), tv([1.0, 2.000001]), Tolerance(rtol=1e-5, atol=1e-8))
    assert outcome.ok is True
    assert outcome.max_abs is not None
    assert 0 < outcome.max_abs < 1e-5
    assert outcome.max_rel is not None
    assert outcome.max_rel < 1e-5


def test_strict_dtype_rejects_another_width() -> None:
    outcome = compare(tv([1.0], torch.float64), tv([1.0]), STRICT)
    assert outcome.ok is False
    assert outcome.message == "the value has dtype float64, expected float32"


def test_promotable_dtype_accepts_another_width_but_not_another_kind() -> None:
    promotable = Tolerance(dtype="promotable")
    assert compare(tv([1.0], torch.float64), tv([1.0]), promotable).ok is True
    outcome = compare(tv([1], torch.int64), tv([1.0]), promotable)
    assert outcome.ok is False
    assert outcome.message == "the value has dtype int64, expected float32"


def test_device_is_checked_only_when_asked() -> None:
    got, expected = tv([1.0], device="cpu"), tv([1.0], device="cuda:0")
    assert compare(got, expected, STRICT).ok is True
    outcome = compare(got, expected, Tolerance(check_device=True))
    assert outcome.ok is False
    assert outcome.message == "the value is on cpu, expected cuda:0"


def test_nan_fails_unless_equal_nan_and_then_must_be_in_the_same_place() -> None:
    nan = math.nan
    assert compare(tv([nan, 1.0]), tv([nan, 1.0]), STRICT).ok is False
    assert compare(tv([nan, 1.0]), tv([nan, 1.0]), Tolerance(equal_nan=True)).ok is True
    outcome = compare(tv([1.0, nan]), tv([1.0, 2.0]), Tolerance(equal_nan=True))
    assert outcome.ok is False
    assert outcome.message == "the value has nan at index (1,) where 2.0 was expected"


def test_infinities_must_match_in_sign_and_place() -> None:
    inf = math.inf
    assert compare(tv([inf, -inf]), tv([inf, -inf]), STRICT).ok is True
    outcome = compare(tv([inf, 1.0]), tv([-inf, 1.0]), STRICT)
    assert outcome.ok is False
    assert outcome.message == "the value has inf at index (0,) where -inf was expected"


def test_integer_tensors_are_compared_exactly() -> None:
    outcome = compare(tv([[1, 2], [3, 5]], torch.int64), tv([[1, 2], [3, 4]], torch.int64), STRICT)
    assert outcome.ok is False
    assert outcome.message == "the value: 1 of 4 values differ, first at index (1, 1)"
    assert outcome.detail == "got 5, expected 4"


def test_nested_structures_name_the_part_that_differs() -> None:
    got = {"mean": tv([1.0]), "parts": (tv([1.0]), tv([2.0, 3.0]))}
    expected = {"mean": tv([1.0]), "parts": (tv([1.0]), tv([2.0]))}
    outcome = compare(got, expected, STRICT)
    assert outcome.ok is False
    assert outcome.message == "the value['parts'][1] has shape (2,), expected (1,)"


def test_containers_differ_in_length_keys_and_type() -> None:
    assert failure(compare([1, 2], [1, 2, 3], STRICT)) == "the value list has 2 items, expected 3"
    assert (
        failure(compare({"a": 1}, {"b": 1}, STRICT)) == "the value has keys ['a'], expected ['b']"
    )
    assert failure(compare([1], (1,), STRICT)) == "the value is a list, expected a tuple"
    assert compare([1], (1,), Tolerance(dtype="promotable")).ok is True


def test_scalars_use_the_tolerance_and_kind() -> None:
    assert compare(0.1 + 0.2, 0.3, STRICT).ok is True
    assert (
        failure(compare(0.5, 0.3, STRICT)) == "the value is off by 0.2, more than atol 1e-05 allows"
    )
    assert failure(compare(3, 3.0, STRICT)) == "the value is an int, expected a float"
    assert failure(compare("mean", "sum", STRICT)) == "the value is 'mean', expected 'sum'"


def test_a_tensor_where_a_tensor_is_expected_is_required() -> None:
    assert failure(compare([1.0], tv([1.0]), STRICT)) == "the value is a list, expected a tensor"
    assert failure(compare(None, tv([1.0]), STRICT)) == "the value is None, expected a tensor"


def test_a_rejected_output_says_why() -> None:
    outcome = compare(Rejected("a __main__.Always object"), tv([1.0]), STRICT)
    assert outcome.ok is False
    assert outcome.message == "the value is a __main__.Always object, expected a tensor"


def test_a_difference_exactly_at_the_tolerance_passes_and_a_larger_one_fails() -> None:
    at_the_edge = compare(tv([1.5, 2.0]), tv([1.0, 2.0]), Tolerance(rtol=0.0, atol=0.5))
    assert (at_the_edge.ok, at_the_edge.max_abs, at_the_edge.max_rel) == (True, 0.5, 0.5)
    beyond = compare(tv([1.5, 2.0]), tv([1.0, 2.0]), Tolerance(rtol=0.0, atol=0.25))
    assert beyond.ok is False
    assert (beyond.max_abs, beyond.max_rel) == (0.5, 0.5)


def test_relative_errors_divide_by_the_expected_value_and_are_zero_where_zero_is_expected() -> None:
    got, expected = tv([0.55, 1e-9, 4.0], torch.float64), tv([0.5, 0.0, 4.0], torch.float64)
    outcome = compare(got, expected, Tolerance(rtol=0.0, atol=0.1))
    assert outcome.ok is True
    assert outcome.max_abs == pytest.approx(0.05)
    assert outcome.max_rel == pytest.approx(0.1)


def test_a_single_differing_value_fails() -> None:
    outcome = compare(tv([2.0]), tv([1.0]), STRICT)
    assert outcome.ok is False
    assert outcome.message == "the value differs at index (0,) by 1, more than atol 1e-05 allows"


def test_empty_tensors_of_the_same_shape_are_equal_with_no_error() -> None:
    for dtype in (torch.float32, torch.int64):
        outcome = compare(tv([], dtype), tv([], dtype), STRICT)
        assert (outcome.ok, outcome.max_abs, outcome.max_rel) == (True, 0.0, 0.0)


def test_equal_integer_and_bool_tensors_pass_with_no_error() -> None:
    for data, dtype in (([[1, 2], [3, 4]], torch.int64), ([True, False], torch.bool)):
        outcome = compare(tv(data, dtype), tv(data, dtype), STRICT)
        assert (outcome.ok, outcome.max_abs, outcome.max_rel) == (True, 0.0, 0.0)


def test_a_nan_or_an_infinity_where_a_number_is_expected_fails() -> None:
    nan, inf = math.nan, math.inf
    assert failure(compare(tv([1.0, nan]), tv([1.0, 2.0]), STRICT)) == (
        "the value has nan at index (1,) where 2.0 was expected"
    )
    assert failure(compare(tv([inf, 1.0]), tv([1.0, 1.0]), STRICT)) == (
        "the value has inf at index (0,) where 1.0 was expected"
    )
    assert failure(compare(tv([1.0]), tv([-inf]), STRICT)) == (
        "the value has 1.0 at index (0,) where -inf was expected"
    )


def test_compare_tensors_names_the_value_when_given_no_label() -> None:
    outcome = compare_tensors(tv([1.0]), tv([3.0]), STRICT)
    assert failure(outcome) == "the value differs at index (0,) by 2, more than atol 1e-05 allows"


def test_values_a_hair_apart_are_shown_with_the_digits_that_tell_them_apart() -> None:
    expected = torch.tensor([0.966743], dtype=torch.float32)
    got = torch.nextafter(expected, torch.tensor([1.0]))
    outcome = compare(tv(got.tolist()), tv(expected.tolist()), Tolerance(rtol=0.0, atol=0.0))
    assert outcome.detail == "got 0.9667431, expected 0.966743"

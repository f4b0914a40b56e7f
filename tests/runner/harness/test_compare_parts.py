"""The pieces comparisons are built from: a case's tolerance, exactness, kinds, combining."""

from __future__ import annotations

from runner.api import CompareSettings
from runner.harness.compare import exact
from runner.harness.outcome import Outcome, Tolerance, worst


def test_a_cases_overrides_replace_the_questions_settings_field_by_field() -> None:
    base = CompareSettings(
        rtol=1e-3, atol=1e-6, dtype="promotable", equal_nan=True, check_device=True
    )
    assert Tolerance.merged(base, {}) == Tolerance(
        rtol=1e-3, atol=1e-6, dtype="promotable", equal_nan=True, check_device=True
    )
    merged = Tolerance.merged(base, {"atol": 1, "equal_nan": 0, "dtype": "strict"})
    assert merged == Tolerance(
        rtol=1e-3, atol=1.0, dtype="strict", equal_nan=False, check_device=True
    )
    assert type(merged.atol) is float


def test_exact_keeps_only_the_device_check_of_a_tolerance() -> None:
    loose = Tolerance(rtol=0.1, atol=0.1, dtype="promotable", equal_nan=False, check_device=True)
    assert exact(loose) == Tolerance(
        rtol=0.0, atol=0.0, dtype="strict", equal_nan=True, check_device=True
    )


def test_only_a_failure_takes_the_kind_of_the_check_that_found_it() -> None:
    passed = Outcome(True, max_abs=0.0)
    assert passed.as_kind("gradients") is passed
    assert Outcome(False, "differs").as_kind("gradients") == Outcome(
        False, "differs", kind="gradients"
    )


def test_worst_takes_the_first_failure_and_the_largest_errors_of_all_parts() -> None:
    parts = [
        Outcome(True, max_abs=0.1, max_rel=0.4),
        Outcome(False, "first", max_abs=0.3, detail="got 1", kind="gradients"),
        Outcome(False, "second", max_rel=0.2, detail="got 2", kind="side_effect"),
    ]
    assert worst(parts) == Outcome(
        False, "first", max_abs=0.3, max_rel=0.4, detail="got 1", kind="gradients"
    )


def test_worst_of_passing_parts_passes_with_no_message_or_kind() -> None:
    assert worst([Outcome(True, max_abs=0.1), Outcome(True)]) == Outcome(True, max_abs=0.1)
    assert worst([]) == Outcome(True)

"""Supervisor-side verdicts for the stages of a training case."""

from __future__ import annotations

import math
from typing import Any

from runner.harness.compare import compare
from runner.harness.judge_common import ReferenceFailure, reference_value, student_value
from runner.harness.outcome import Outcome, Tolerance
from runner.harness.payload import Rejected
from runner.harness.results import CaseRecord
from runner.harness.spec import Case
from runner.harness.spec_training import Stage


def judge_training(
    case: Case, student: CaseRecord, reference: CaseRecord, tolerance: Tolerance
) -> list[tuple[Stage, Outcome]]:
    """One outcome per stage; raises ReferenceFailure if the reference did not train."""
    spec = case.training
    assert spec is not None  # noqa: S101  # only called for training cases
    number = case.index + 1
    if reference.error is not None:
        raise ReferenceFailure(f"case {number}: the reference's training step raised")
    reference_losses = reference_value(reference, "losses", number)
    reference_params = reference_value(reference, "params", number)
    outcomes = []
    for stage in spec.stages:
        if stage.check == "runs":
            outcome = _runs(student, spec.steps)
        elif stage.check == "loss_decreases":
            outcome = _decreases(student_value(student, "losses"), stage.tolerance)
        else:
            got = [student_value(student, "losses"), student_value(student, "params")]
            outcome = compare(got, [reference_losses, reference_params], tolerance, "training")
            if not outcome.ok:
                outcome = Outcome(
                    False, f"losses or parameters differ from the expected ones ({outcome.message})"
                )
        outcomes.append((stage, outcome))
    return outcomes


def _runs(student: CaseRecord, steps: int) -> Outcome:
    step_error = student.values.get("step_error")
    if isinstance(step_error, Rejected):
        return Outcome(False, step_error.reason)
    returned = student_value(student, "returned")
    if not isinstance(returned, list) or len(returned) != steps:
        return Outcome(False, f"expected {steps} training steps to run")
    for index, loss in enumerate(returned):
        if not isinstance(loss, float) or not math.isfinite(loss):
            return Outcome(False, f"step {index + 1} did not return a finite scalar loss")
    return Outcome(True)


def _decreases(losses: Any, tolerance: float) -> Outcome:
    valid = isinstance(losses, list) and len(losses) >= 2
    if not valid or not all(isinstance(x, float) and math.isfinite(x) for x in losses):
        return Outcome(False, "the loss could not be measured after training")
    initial, final = losses[0], losses[-1]
    target = initial - tolerance * abs(initial)
    if final < target:
        return Outcome(True)
    return Outcome(
        False, f"the loss went from {initial:.4g} to {final:.4g}; it must fall below {target:.4g}"
    )

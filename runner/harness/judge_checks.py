"""Supervisor-side verdicts for each check kind, decided from payload data only."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import torch

from runner.harness import values
from runner.harness.compare import compare, exact
from runner.harness.judge_common import (
    ReferenceFailure,
    first_tensor,
    reference_value,
    student_value,
)
from runner.harness.outcome import Outcome, Tolerance
from runner.harness.payload import Rejected, TensorValue
from runner.harness.results import CaseRecord
from runner.harness.spec import Case, Check

TIME_FLOOR_S = 1e-4  # timings below this are noise; ratios use at least this
MEMORY_FLOOR_BYTES = 4096


@dataclass(frozen=True)
class JudgeInput:
    case: Case
    check: Check
    student: CaseRecord
    reference: CaseRecord
    tolerance: Tolerance
    efficiency: dict[str, float]

    @property
    def number(self) -> int:
        return self.case.index + 1

    def ref(self, key: str) -> Any:
        return reference_value(self.reference, key, self.number)


def _labelled(outcome: Outcome, what: str) -> Outcome:
    return outcome if outcome.ok else replace(outcome, message=f"{what} ({outcome.message})")


def gradients(j: JudgeInput) -> Outcome:
    got, expected = student_value(j.student, "grads"), j.ref("grads")
    if isinstance(got, Rejected):
        return Outcome(False, f"gradients: {got.reason}")
    if isinstance(got, list) and isinstance(expected, list) and len(got) == len(expected):
        for index, (g, e) in enumerate(zip(got, expected, strict=True)):
            if g is None and e is not None:
                return Outcome(False, f"gradients: input {index + 1} received no gradient")
    return compare(got, expected, j.tolerance, "gradients")


def _flag(j: JudgeInput, name: str) -> Outcome:
    got = first_tensor(student_value(j.student, "output"))
    if got is None:
        return Outcome(False, f"{name}: the output is not a tensor")
    expected = j.check.options.get("expected")
    if expected is None:
        reference = first_tensor(j.ref("output"))
        expected = getattr(reference, name) if reference else None
    actual = getattr(got, name)
    if expected is None or actual == expected:
        return Outcome(True)
    return Outcome(False, f"output.{name} is {actual}, expected {expected}")


def grad_accumulates(j: JudgeInput) -> Outcome:
    once = compare(student_value(j.student, "grads_once"), j.ref("grads_once"), j.tolerance)
    if not once.ok:
        return _labelled(once, "gradients after one backward call differ")
    twice = compare(student_value(j.student, "grads_twice"), j.ref("grads_twice"), j.tolerance)
    return _labelled(twice, "gradients do not accumulate over two backward calls")


def purity(j: JudgeInput) -> Outcome:
    pristine = values.build_values([j.case.args, j.case.kwargs], j.case.seed)
    expected = _as_decoded(pristine)
    after = compare(
        student_value(j.student, "inputs_after"), expected, exact(j.tolerance), "inputs"
    )
    return _labelled(after, "an input was modified in place")


def _as_decoded(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        tensor = value.detach()
        return TensorValue(tensor, value.requires_grad, True, "cpu", "torch.Tensor")
    if isinstance(value, list):
        return [_as_decoded(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_decoded(item) for key, item in value.items()}
    return value


def determinism(j: JudgeInput) -> Outcome:
    output = student_value(j.student, "output")
    rerun = compare(student_value(j.student, "rerun"), output, exact(j.tolerance), "second run")
    return _labelled(rerun, "two runs with the same seed differ")


def gradcheck(j: JudgeInput) -> Outcome:
    if j.student.gradcheck is None:
        return Outcome(False, "gradcheck did not run")
    ok, message = j.student.gradcheck
    if not ok:
        return Outcome(False, f"gradcheck failed: {message or 'numerical and analytical differ'}")
    # The child's verdict alone could be forged; the float64 analytical gradients are data.
    options = j.check.options
    tolerance = Tolerance(rtol=options.get("rtol", 1e-3), atol=options.get("atol", 1e-5))
    got = student_value(j.student, "gradcheck_grads")
    grads = compare(got, j.ref("gradcheck_grads"), tolerance, "float64 gradients")
    return _labelled(grads, "gradients differ from the expected ones")


def efficiency(j: JudgeInput) -> Outcome:
    if j.student.efficiency_error:
        return Outcome(False, f"efficiency run failed: {j.student.efficiency_error}")
    student, reference = j.student, j.reference
    limits = [
        ("time", student.time_s, reference.time_s, TIME_FLOOR_S, "max_time_ratio"),
        (
            "peak memory",
            student.peak_bytes,
            reference.peak_bytes,
            MEMORY_FLOOR_BYTES,
            "max_memory_ratio",
        ),
    ]
    for what, got, expected, floor, key in limits:
        limit = j.efficiency.get(key)
        if limit is None:
            continue
        if got is None or expected is None:
            return Outcome(False, f"efficiency: no {what} measurement")
        ratio = max(float(got), floor) / max(float(expected), floor)
        if ratio > limit:
            return Outcome(False, f"{what} {ratio:.1f}× the reference's (limit {limit:g}×)")
    return Outcome(True)


GRAPH_MESSAGES = {
    (True, "freed"): "the graph behind the output was freed (call backward/grad with "
    "retain_graph=True)",
    (False, "kept"): "the graph behind the output was kept: a second backward through it "
    "worked, but it should have been freed (drop retain_graph=True)",
    (True, "no_graph"): "the output does not require grad, so there is no graph to "
    "backpropagate through",
    (False, "no_graph"): "the output does not require grad: expected a graph that was "
    "used and then freed",
}


def retain_graph(j: JudgeInput) -> Outcome:
    """Kept or freed as `expected`; a kept graph must also give the reference's gradients."""
    expected = bool(j.check.options["expected"])
    wanted = "kept" if expected else "freed"
    theirs = j.reference.retain_graph
    if theirs is None or theirs.outcome != wanted:
        found = "no data" if theirs is None else f"{theirs.outcome} {theirs.message}".strip()
        raise ReferenceFailure(f"case {j.number}: retain_graph expects {wanted}, got {found}")
    mine = j.student.retain_graph
    if mine is None:
        return Outcome(False, "retain_graph: the check produced no data")
    if mine.outcome == "error":
        return Outcome(False, f"backward through the output failed: {mine.message}")
    if mine.outcome != wanted:
        return Outcome(False, GRAPH_MESSAGES[(expected, mine.outcome)])
    if not expected:
        return Outcome(True)
    got = student_value(j.student, "retained_grads")
    grads = compare(got, j.ref("retained_grads"), j.tolerance, "gradients")
    return _labelled(grads, "backward through the kept graph gave other gradients")


JUDGES: dict[str, Callable[[JudgeInput], Outcome]] = {
    "gradients": gradients,
    "requires_grad": lambda j: _flag(j, "requires_grad"),
    "is_leaf": lambda j: _flag(j, "is_leaf"),
    "grad_accumulates": grad_accumulates,
    "purity": purity,
    "determinism": determinism,
    "gradcheck": gradcheck,
    "efficiency": efficiency,
    "retain_graph": retain_graph,
}

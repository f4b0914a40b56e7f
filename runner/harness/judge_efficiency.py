"""The efficiency verdict: kernel-measured CPU time and peak tensor memory against the reference's.

Time: three runs of the case's timed calls, each in its own sandboxed child:
the answer's, the reference's and a baseline (the reference loaded and the
inputs built, but no call made). CPU time comes from the kernel's accounting
of each child; the baseline's is subtracted so the ratio compares the calls
alone. The timed outputs are compared too, so a fast path that returns wrong
values fails instead of winning, and each timed call has fresh inputs, so a
cache cannot win. Memory: the peak tensor memory of the compared call
(`runner.harness.memory`), the answer's against the reference's.
"""

from __future__ import annotations

from dataclasses import dataclass

from runner.harness.compare import compare
from runner.harness.judge_common import ReferenceFailure
from runner.harness.outcome import Outcome, Tolerance
from runner.harness.results import TimedRun
from runner.harness.tb import format_error

CPU_FLOOR_S = 0.002  # CPU time below this is accounting noise; ratios use at least this
MEMORY_FLOOR_BYTES = 4096


@dataclass(frozen=True)
class Measured:
    """One timing child: the kernel's CPU time and its decoded payload (None if it failed)."""

    cpu_s: float
    run: TimedRun | None
    failure: str = ""  # why there is no payload (time limit, memory limit, crash)


@dataclass(frozen=True)
class TimingEvidence:
    student: Measured
    reference: Measured
    baseline: Measured


def _reference_problem(measured: Measured, what: str, number: int) -> None:
    run = measured.run
    problem = measured.failure
    if run is not None:
        error = run.load_error or run.error
        problem = run.harness_error or (f"{error.type}: {error.message}" if error else "")
    if run is None or problem:
        raise ReferenceFailure(f"case {number}: the {what} timing run failed: {problem}")


def _student_problem(measured: Measured) -> str:
    run = measured.run
    if run is None:
        return f"the timed run did not finish: {measured.failure}"
    if run.harness_error:
        return "the timed run's result could not be read"
    error = run.load_error or run.error
    return f"a timed call failed: {format_error(error.as_dict())}" if error else ""


def _ratio(got: float, reference: float, baseline: float, floor: float) -> float:
    return max(got - baseline, floor) / max(reference - baseline, floor)


def judge_efficiency(
    timing: TimingEvidence,
    limits: dict[str, float],
    tolerance: Tolerance,
    number: int,
    memory: tuple[int | None, int | None] = (None, None),
) -> Outcome:
    """Outputs of every timed call match the reference's; time and memory ratios within limits."""
    _reference_problem(timing.reference, "reference's", number)
    _reference_problem(timing.baseline, "baseline", number)
    problem = _student_problem(timing.student)
    if problem:
        return Outcome(False, problem, kind="efficiency")
    student, reference = timing.student.run, timing.reference.run
    assert student is not None  # noqa: S101  # checked just above
    assert reference is not None  # noqa: S101  # checked just above
    if len(student.outputs) != len(reference.outputs):
        return Outcome(False, "not every timed call returned a value", kind="efficiency")
    for index, (got, expected) in enumerate(zip(student.outputs, reference.outputs, strict=True)):
        outcome = compare(got, expected, tolerance, f"the output of timed call {index + 1}")
        if not outcome.ok:
            return outcome.as_kind("output")
    return _within_limits(timing, limits, memory, number)


def _within_limits(
    timing: TimingEvidence,
    limits: dict[str, float],
    memory: tuple[int | None, int | None],
    number: int,
) -> Outcome:
    s, r, b = timing.student, timing.reference, timing.baseline
    figures = [("CPU time", "max_time_ratio", _ratio(s.cpu_s, r.cpu_s, b.cpu_s, CPU_FLOOR_S))]
    if "max_memory_ratio" in limits:
        mine, theirs = memory
        if theirs is None:
            raise ReferenceFailure(f"case {number}: the reference's memory was not measured")
        if mine is None:
            return Outcome(False, "efficiency: the memory was not measured", kind="efficiency")
        ratio = max(mine, MEMORY_FLOOR_BYTES) / max(theirs, MEMORY_FLOOR_BYTES)
        figures.append(("peak memory", "max_memory_ratio", ratio))
    for what, key, ratio in figures:
        limit = limits.get(key)
        if limit is not None and ratio > limit:
            return Outcome(
                False,
                f"{what} {ratio:.1f}× the reference's (limit {limit:g}×)",
                kind="efficiency",
            )
    return Outcome(True)

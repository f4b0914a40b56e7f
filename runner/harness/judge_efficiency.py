"""The efficiency verdict: kernel-measured CPU time and peak tensor memory against the reference's.

Time: the case's timed calls run in sandboxed children of their own: the
answer's, the reference's and a baseline (the reference loaded and the inputs
built, but no call made). CPU time comes from the kernel's accounting of each
child; the baseline's is subtracted so the ratio compares the calls alone.
A child's CPU time varies by ten milliseconds or more between runs (page faults
after the fork, thread-pool start-up), and that noise only ever adds: so each
side's figure is the least of several runs (the worker times the reference and
the baseline several times, and the answer again before it fails on time), and
a difference below `CPU_FLOOR_S` counts as the floor. The timed outputs are
compared too, so a fast path that returns wrong values fails instead of
winning, and each timed call has fresh inputs, so a cache cannot win.

Memory: the peak tensor memory of the compared call (`runner.harness.memory`),
the answer's against the reference's; and, as a net for memory the tensor
count cannot see (buffers made outside torch's operators), the kernel's peak
charge to the timing child's cgroup may not exceed the reference's by more
than a generous slack (it varies by tens of MB between runs).
"""

from __future__ import annotations

from dataclasses import dataclass

from runner.harness.compare import compare
from runner.harness.judge_common import ReferenceFailure
from runner.harness.outcome import Outcome, Tolerance
from runner.harness.results import TimedRun
from runner.harness.tb import format_error

CPU_FLOOR_S = 0.010  # below this a difference of two children's CPU times is noise
MEMORY_FLOOR_BYTES = 4096
KERNEL_SLACK_KB = 64 << 10  # run-to-run noise of a cgroup's peak is well under this


# What a student is told the timing runs were: their function called again, outputs compared.
REPEATED_CALL = "repeated call (made to time the answer)"


@dataclass(frozen=True)
class Measured:
    """One timing child: the kernel's CPU time and its decoded payload (None if it failed)."""

    cpu_s: float
    run: TimedRun | None
    failure: str = ""  # why there is no payload, in the student's words (time limit, crash)
    peak_kb: int | None = None  # the kernel's peak charge to the child's cgroup, if counted


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


def _ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st."""
    teen = number % 100 in (11, 12, 13)
    suffix = "th" if teen else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _student_problem(measured: Measured) -> str:
    run = measured.run
    if run is None:
        why = f": {measured.failure}" if measured.failure else ""
        return f"the repeated calls made to time the answer did not finish{why}"
    if run.harness_error:
        return "the result of the repeated calls made to time the answer could not be read"
    error = run.load_error or run.error
    return f"a {REPEATED_CALL} failed: {format_error(error.as_dict())}" if error else ""


def time_ratio(timing: TimingEvidence) -> float:
    """The answer's timed calls' CPU time over the reference's, the baseline taken off both."""
    got, reference, baseline = (
        m.cpu_s for m in (timing.student, timing.reference, timing.baseline)
    )
    return max(got - baseline, CPU_FLOOR_S) / max(reference - baseline, CPU_FLOOR_S)


def time_over_limit(timing: TimingEvidence, limits: dict[str, float]) -> bool:
    limit = limits.get("max_time_ratio")
    return limit is not None and time_ratio(timing) > limit


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
        return Outcome(False, f"not every {REPEATED_CALL} returned a value", kind="efficiency")
    for index, (got, expected) in enumerate(zip(student.outputs, reference.outputs, strict=True)):
        label = f"the output of the {_ordinal(index + 1)} {REPEATED_CALL}"
        outcome = compare(got, expected, tolerance, label)
        if not outcome.ok:
            return outcome.as_kind("output")
    return _within_limits(timing, limits, memory, number)


def _kernel_excess_kb(timing: TimingEvidence, limit: float, reference_bytes: int) -> int | None:
    """How far the answer's kernel-counted peak passes the reference's plus the slack."""
    mine, theirs = timing.student.peak_kb, timing.reference.peak_kb
    if mine is None or theirs is None:
        return None
    allowed = KERNEL_SLACK_KB + int((limit - 1) * reference_bytes) // 1024
    excess = mine - theirs
    return excess if excess > allowed else None


def _within_limits(
    timing: TimingEvidence,
    limits: dict[str, float],
    memory: tuple[int | None, int | None],
    number: int,
) -> Outcome:
    if time_over_limit(timing, limits):
        return _over("CPU time", time_ratio(timing), limits["max_time_ratio"])
    if "max_memory_ratio" in limits:
        return _memory_outcome(timing, limits["max_memory_ratio"], memory, number)
    return Outcome(True)


def _memory_outcome(
    timing: TimingEvidence, limit: float, memory: tuple[int | None, int | None], number: int
) -> Outcome:
    mine, theirs = memory
    if theirs is None:
        raise ReferenceFailure(f"case {number}: the reference's memory was not measured")
    if mine is None:
        return Outcome(False, "efficiency: the memory was not measured", kind="efficiency")
    ratio = max(mine, MEMORY_FLOOR_BYTES) / max(theirs, MEMORY_FLOOR_BYTES)
    if ratio > limit:
        return _over("peak memory", ratio, limit)
    excess = _kernel_excess_kb(timing, limit, theirs)
    if excess is not None:
        return Outcome(
            False,
            f"the repeated calls made to time the answer used {excess >> 10} MiB more memory "
            "than the reference's (the kernel's count)",
            kind="efficiency",
        )
    return Outcome(True)


def _over(what: str, ratio: float, limit: float) -> Outcome:
    return Outcome(
        False, f"{what} {ratio:.1f}× the reference's (limit {limit:g}×)", kind="efficiency"
    )

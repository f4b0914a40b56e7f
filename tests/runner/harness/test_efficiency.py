"""The efficiency verdict: kernel CPU time over a baseline, timed outputs, tensor memory."""

from __future__ import annotations

import pytest
import torch

from runner.harness.judge_common import ReferenceFailure
from runner.harness.judge_efficiency import Measured, TimingEvidence, judge_efficiency
from runner.harness.outcome import Tolerance
from runner.harness.payload import TensorValue
from runner.harness.results import ErrorInfo, TimedRun

TOLERANCE = Tolerance(rtol=1e-5, atol=1e-8)
TIME = {"max_time_ratio": 5.0}


def outputs(*values: float) -> list[object]:
    return [TensorValue(torch.tensor([v]), False, True, "cpu", "torch.Tensor") for v in values]


def run(*values: float, error: ErrorInfo | None = None) -> TimedRun:
    return TimedRun(None, None, error, outputs(*values))


def evidence(student_cpu: float, student: TimedRun | None = None) -> TimingEvidence:
    return TimingEvidence(
        student=Measured(student_cpu, student or run(1.0, 2.0)),
        reference=Measured(0.060, run(1.0, 2.0)),
        baseline=Measured(0.050, TimedRun(None, None, None, [])),
    )


def test_time_is_compared_after_the_baseline_is_taken_off() -> None:
    # 10 ms of calls for the reference; 45 ms for the answer: 4.5x.
    assert judge_efficiency(evidence(0.095), TIME, TOLERANCE, 1).ok
    slow = judge_efficiency(evidence(0.110), TIME, TOLERANCE, 1)
    assert not slow.ok
    assert slow.message == "CPU time 6.0× the reference's (limit 5×)"
    assert slow.kind == "efficiency"


def test_cpu_time_below_the_floor_counts_as_the_floor() -> None:
    # The reference's calls take 0.5 ms, under the 10 ms floor: a child's noise alone can add
    # 10 ms, which must not fail an answer, so 45 ms is 4.5x the floor and 60 ms is 6x.
    def quick(student_cpu: float) -> TimingEvidence:
        return TimingEvidence(
            Measured(student_cpu, run(1.0, 2.0)),
            Measured(0.0505, run(1.0, 2.0)),
            Measured(0.050, TimedRun(None, None, None, [])),
        )

    assert judge_efficiency(quick(0.095), TIME, TOLERANCE, 1).ok
    assert judge_efficiency(quick(0.110), TIME, TOLERANCE, 1).message.startswith("CPU time 6.0×")


def test_memory_is_the_peak_tensor_memory_of_the_compared_calls() -> None:
    limits = {"max_memory_ratio": 3.0}
    assert judge_efficiency(evidence(0.06), limits, TOLERANCE, 1, (3 << 20, 1 << 20)).ok
    wasteful = judge_efficiency(evidence(0.06), limits, TOLERANCE, 1, (5 << 20, 1 << 20))
    assert wasteful.message == "peak memory 5.0× the reference's (limit 3×)"
    # Under 4 KiB counts as 4 KiB: 12,000 bytes against 100 is 2.9x the floor.
    assert judge_efficiency(evidence(0.06), limits, TOLERANCE, 1, (12_000, 100)).ok


def test_an_unmeasured_memory_fails_the_answer_or_blames_the_reference() -> None:
    limits = {"max_memory_ratio": 3.0}
    outcome = judge_efficiency(evidence(0.06), limits, TOLERANCE, 1, (None, 1 << 20))
    assert outcome.message == "efficiency: the memory was not measured"
    with pytest.raises(ReferenceFailure, match="memory was not measured"):
        judge_efficiency(evidence(0.06), limits, TOLERANCE, 1, (1 << 20, None))


def test_a_fast_answer_with_a_wrong_timed_output_fails() -> None:
    outcome = judge_efficiency(evidence(0.05, student=run(1.0, 2.5)), TIME, TOLERANCE, 1)
    assert not outcome.ok
    assert outcome.message.startswith(
        "the output of the 2nd repeated call (made to time the answer) differs"
    )


def test_a_timed_call_that_raises_fails_with_its_error() -> None:
    error = ErrorInfo("ValueError", "no", "")
    outcome = judge_efficiency(evidence(0.05, student=run(error=error)), TIME, TOLERANCE, 1)
    assert outcome.message == "a repeated call (made to time the answer) failed: ValueError: no"


def test_a_timed_run_that_did_not_finish_fails_in_the_students_words() -> None:
    timing = evidence(0.05)
    stopped = TimingEvidence(
        Measured(5.0, None, "the code ran longer than the 10 s time limit"),
        timing.reference,
        timing.baseline,
    )
    outcome = judge_efficiency(stopped, TIME, TOLERANCE, 1)
    assert outcome.message == (
        "the repeated calls made to time the answer did not finish: the code ran longer than "
        "the 10 s time limit"
    )
    silent = TimingEvidence(Measured(5.0, None), timing.reference, timing.baseline)
    assert judge_efficiency(silent, TIME, TOLERANCE, 1).message == (
        "the repeated calls made to time the answer did not finish"
    )


def test_a_timed_result_the_harness_could_not_read_is_said_in_the_students_words() -> None:
    unread = TimedRun(None, "bad frame", None, [])
    outcome = judge_efficiency(evidence(0.05, student=unread), TIME, TOLERANCE, 1)
    assert outcome.message == (
        "the result of the repeated calls made to time the answer could not be read"
    )


def test_a_reference_whose_timing_failed_is_the_questions_fault() -> None:
    timing = evidence(0.05)
    broken = TimingEvidence(timing.student, Measured(0.1, None, "error: crashed"), timing.baseline)
    with pytest.raises(ReferenceFailure, match="timing run failed"):
        judge_efficiency(broken, TIME, TOLERANCE, 1)


def test_memory_outside_torchs_operators_is_caught_by_the_kernels_count() -> None:
    timing = evidence(0.06)
    hoarding = TimingEvidence(
        Measured(0.06, run(1.0, 2.0), peak_kb=300 << 10),
        Measured(0.06, run(1.0, 2.0), peak_kb=30 << 10),
        timing.baseline,
    )
    limits = {"max_memory_ratio": 3.0}
    outcome = judge_efficiency(hoarding, limits, TOLERANCE, 1, (1 << 20, 1 << 20))
    assert outcome.message == (
        "the repeated calls made to time the answer used 270 MiB more memory than the reference's"
        " (the kernel's count)"
    )
    noisy = TimingEvidence(
        Measured(0.06, run(1.0, 2.0), peak_kb=60 << 10),
        Measured(0.06, run(1.0, 2.0), peak_kb=30 << 10),
        timing.baseline,
    )
    assert judge_efficiency(noisy, limits, TOLERANCE, 1, (1 << 20, 1 << 20)).ok

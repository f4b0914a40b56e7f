"""The efficiency verdict from kernel figures: ratios over a baseline, outputs of timed calls."""

from __future__ import annotations

import pytest
import torch

from runner.harness.judge_common import ReferenceFailure
from runner.harness.judge_efficiency import Measured, TimingEvidence, judge_efficiency
from runner.harness.outcome import Tolerance
from runner.harness.payload import TensorValue
from runner.harness.results import ErrorInfo, TimedRun

TOLERANCE = Tolerance(rtol=1e-5, atol=1e-8)


def outputs(*values: float) -> list[object]:
    return [TensorValue(torch.tensor([v]), False, True, "cpu", "torch.Tensor") for v in values]


def run(*values: float, error: ErrorInfo | None = None) -> TimedRun:
    return TimedRun(None, None, error, outputs(*values), None)


def evidence(
    student_cpu: float, student_rss: int = 400_000, student: TimedRun | None = None
) -> TimingEvidence:
    return TimingEvidence(
        student=Measured(student_cpu, student_rss, student or run(1.0, 2.0)),
        reference=Measured(0.060, 410_000, run(1.0, 2.0)),
        baseline=Measured(0.050, 400_000, TimedRun(None, None, None, [], None)),
    )


def test_time_is_compared_after_the_baseline_is_taken_off() -> None:
    # 10 ms of calls for the reference; 45 ms for the answer: 4.5x.
    assert judge_efficiency(evidence(0.095), {"max_time_ratio": 5.0}, TOLERANCE, 1).ok
    slow = judge_efficiency(evidence(0.110), {"max_time_ratio": 5.0}, TOLERANCE, 1)
    assert not slow.ok
    assert slow.message == "CPU time 6.0× the reference's (limit 5×)"
    assert slow.kind == "efficiency"


def test_memory_is_the_peak_resident_size_above_the_baseline() -> None:
    limits = {"max_memory_ratio": 3.0}
    assert judge_efficiency(evidence(0.06, 425_000), limits, TOLERANCE, 1).ok
    wasteful = judge_efficiency(evidence(0.06, 450_000), limits, TOLERANCE, 1)
    assert wasteful.message == "peak memory 5.0× the reference's (limit 3×)"


def test_a_fast_answer_with_a_wrong_timed_output_fails() -> None:
    outcome = judge_efficiency(
        evidence(0.05, student=run(1.0, 2.5)), {"max_time_ratio": 5.0}, TOLERANCE, 1
    )
    assert not outcome.ok
    assert outcome.message.startswith("the output of timed call 2 differs")


def test_a_timed_call_that_raises_fails_with_its_error() -> None:
    error = ErrorInfo("ValueError", "no", "")
    outcome = judge_efficiency(
        evidence(0.05, student=run(error=error)), {"max_time_ratio": 5.0}, TOLERANCE, 1
    )
    assert outcome.message == "a timed call failed: ValueError: no"


def test_a_timed_run_that_did_not_finish_fails() -> None:
    timing = evidence(0.05)
    stopped = TimingEvidence(
        Measured(5.0, 0, None, "timeout: too slow"), timing.reference, timing.baseline
    )
    outcome = judge_efficiency(stopped, {"max_time_ratio": 5.0}, TOLERANCE, 1)
    assert outcome.message == "the timed run did not finish: timeout: too slow"


def test_a_reference_whose_timing_failed_is_the_questions_fault() -> None:
    timing = evidence(0.05)
    broken = TimingEvidence(
        timing.student, Measured(0.1, 0, None, "error: crashed"), timing.baseline
    )
    with pytest.raises(ReferenceFailure, match="timing run failed"):
        judge_efficiency(broken, {"max_time_ratio": 5.0}, TOLERANCE, 1)

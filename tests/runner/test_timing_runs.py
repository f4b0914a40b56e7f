"""How many timing children an efficiency case takes, and which figure counts.

A child's CPU time only gains noise, so the least of several runs is the truest: the
reference and the baseline are timed `TIMING_RUNS` times (once per worker, cached), and the
answer is timed again while it is over the limit. `_timed` (one sandboxed child) is replaced
by a script of measurements here; tests/runner/test_efficiency_runs.py runs the real children.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import cast

import pytest

from runner import worker
from runner.harness.judge_efficiency import Measured, TimingEvidence
from runner.harness.results import TimedRun
from runner.supervisor import Supervisor
from runner.types import TIMING_RUNS, GradingJob

DONE = TimedRun(None, None, None, [])


def job() -> GradingJob:
    # A reference of its own, so no other test's cached timing answers for it.
    reference = f"def f(x):\n    return x  # {uuid.uuid4().hex}\n"
    cases = [{"name": "timed", "args": [1], "checks": ["efficiency"]}]
    return GradingJob(
        job_id="timing",
        source="def f(x):\n    return x\n",
        entry_point="f",
        reference_source=reference,
        cases=cases,
        efficiency={"max_time_ratio": 5.0},
    )


class Script:
    """Scripted CPU seconds per role ("student", "reference", "baseline") and the calls made."""

    def __init__(self, **figures: list[float | None]) -> None:
        self.figures = {role: iter(values) for role, values in figures.items()}
        self.calls: list[str] = []

    def __call__(
        self, _s: object, _j: object, _c: int, _d: str, *, role: str, calls: bool
    ) -> Measured:
        name = role if calls else "baseline"
        self.calls.append(name)
        cpu = next(self.figures[name])
        if cpu is None:
            return Measured(0.0, None, "timeout: the code ran too long")
        return Measured(cpu, DONE, peak_kb=int(cpu * 1e6))


Install = Callable[..., Script]
NO_SUPERVISOR = cast(Supervisor, None)  # `_timed` is scripted: no child is started


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch) -> Install:
    def install(**figures: list[float | None]) -> Script:
        scripted = Script(**figures)
        monkeypatch.setattr(worker, "_timed", scripted)
        return scripted

    return install


def timing(scripted: Script) -> TimingEvidence:
    return worker._student_timing(NO_SUPERVISOR, job(), 0, "cpu")


REFERENCE = {"reference": [0.080, 0.065, 0.070], "baseline": [0.060, 0.050, 0.055]}


def test_the_reference_and_the_baseline_count_their_least_run(script: Install) -> None:
    scripted = script(student=[0.070], **REFERENCE)
    evidence = timing(scripted)
    assert (evidence.reference.cpu_s, evidence.baseline.cpu_s) == (0.065, 0.050)
    assert scripted.calls.count("reference") == scripted.calls.count("baseline") == TIMING_RUNS


def test_an_answer_within_the_limit_is_timed_once(script: Install) -> None:
    scripted = script(student=[0.090], **REFERENCE)
    evidence = timing(scripted)
    assert evidence.student.cpu_s == 0.090
    assert scripted.calls.count("student") == 1


def test_a_slow_child_is_timed_again_and_the_quicker_run_counts(script: Install) -> None:
    # 0.160 - 0.050 is 110 ms against the reference's 15 ms (floored to 10 ms): 11x, over 5x.
    scripted = script(student=[0.160, 0.072], **REFERENCE)
    evidence = timing(scripted)
    assert (evidence.student.cpu_s, evidence.student.peak_kb) == (0.072, 72_000)
    assert scripted.calls.count("student") == 2


def test_a_slow_answer_stays_slow_after_every_run(script: Install) -> None:
    scripted = script(student=[0.300, 0.250, 0.280], **REFERENCE)
    evidence = timing(scripted)
    assert evidence.student.cpu_s == 0.250
    assert scripted.calls.count("student") == TIMING_RUNS


def test_a_failed_timing_run_is_not_run_again(script: Install) -> None:
    scripted = script(student=[None], **REFERENCE)
    evidence = timing(scripted)
    assert evidence.student.run is None
    assert scripted.calls.count("student") == 1


def test_a_repeat_that_fails_leaves_the_runs_that_finished(script: Install) -> None:
    # The answer was over the limit and its repeat died (a noisy machine's time limit): the
    # finished run is the evidence, and it is still over the limit.
    scripted = script(student=[0.300, None], **REFERENCE)
    evidence = timing(scripted)
    assert (evidence.student.cpu_s, evidence.student.run) == (0.300, DONE)
    assert scripted.calls.count("student") == 2

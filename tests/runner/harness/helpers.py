"""Run both roles in-process (no sandbox: that is tested with the sandbox) and score."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

from django.core.management import call_command

from runner.api import CaseResult, CompareSettings, GradingJob, Status
from runner.harness.child import run_request
from runner.harness.judge_efficiency import TimingEvidence
from runner.harness.scoring import Payloads, score_job, visible_and_hidden
from runner.harness.spec import parse_cases
from runner.harness.spec_values import CaseError
from runner.worker import harness_request


def make_job(
    source: str,
    reference: str,
    cases: list[dict[str, Any]],
    entry_point: str = "f",
    **options: Any,
) -> GradingJob:
    return GradingJob(
        job_id="test",
        source=source,
        entry_point=entry_point,
        reference_source=reference,
        cases=cases,
        compare=options.pop("compare", CompareSettings()),
        **options,
    )


def payload(job: GradingJob, role: str, run: list[int] | None = None) -> bytes:
    # Without the interpreter's veto: its audit hook would stay in the test process for good
    # (tests/runner/harness/test_audit.py runs it in sandboxed children).
    request = harness_request(job, role=role, device="cpu", run=run)
    return run_request({**request, "audited": False})


def payloads(job: GradingJob, timing: dict[int, TimingEvidence] | None = None) -> Payloads:
    """The reference's run and the answer's visible and hidden runs, as the supervisor makes
    them (in this process)."""
    try:
        visible, hidden = visible_and_hidden(parse_cases(job.cases))
    except CaseError:  # score_job reports it
        return Payloads(payload(job, "reference"), payload(job, "student"))
    return Payloads(
        reference=payload(job, "reference"),
        visible=payload(job, "student", visible) if visible else None,
        hidden=payload(job, "student", hidden) if hidden else None,
        timing=timing or {},
    )


def grade(
    source: str, reference: str, cases: list[dict[str, Any]], **options: Any
) -> tuple[float, list[CaseResult], Status, str]:
    """Score `source` against `reference` on `cases`, both run in this process."""
    job = make_job(source, reference, cases, **options)
    return score_job(job, payloads(job))


def only_message(results: list[CaseResult]) -> str:
    assert len(results) == 1
    return results[0].message


def run_check(bank: Path, *options: str) -> tuple[str, str, int]:
    """`manage.py runner_check` on `bank`: its stdout, stderr and exit status."""
    out, err = StringIO(), StringIO()
    try:
        call_command("runner_check", str(bank), *options, stdout=out, stderr=err)
    except SystemExit as stop:
        return out.getvalue(), err.getvalue(), int(stop.code or 0)
    return out.getvalue(), err.getvalue(), 0

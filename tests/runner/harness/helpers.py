"""Run both roles in-process (no sandbox: that is tested with the sandbox) and score."""

from __future__ import annotations

from typing import Any

from runner.api import CaseResult, CompareSettings, GradingJob, Status
from runner.harness.child import run_request
from runner.harness.scoring import score_job


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


def payload(job: GradingJob, role: str) -> bytes:
    source = job.source if role == "student" else job.reference_source
    request = {
        "source": source,
        "entry_point": job.entry_point,
        "cases": job.cases,
        "forbidden": job.forbidden,
        "device": "cpu",
        "role": role,
    }
    return run_request(request)


def grade(
    source: str, reference: str, cases: list[dict[str, Any]], **options: Any
) -> tuple[float, list[CaseResult], Status, str]:
    """Score `source` against `reference` on `cases`, both run in this process."""
    job = make_job(source, reference, cases, **options)
    return score_job(job, payload(job, "reference"), payload(job, "student"))


def only_message(results: list[CaseResult]) -> str:
    assert len(results) == 1
    return results[0].message

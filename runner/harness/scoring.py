"""In the trusted supervisor: decode both payloads and decide every verdict.

The child's exit code and stdout play no part: only the payload data, the
job's cases and the reference's data do.
"""

from __future__ import annotations

from runner.api import CaseResult, GradingJob, Status
from runner.harness.judge import judge_case
from runner.harness.judge_common import ReferenceFailure
from runner.harness.payload import PayloadError
from runner.harness.results import ChildResult, decode_result
from runner.harness.spec import Case, parse_cases
from runner.harness.spec_values import CaseError
from runner.harness.static import find_forbidden
from runner.harness.tb import format_error

Scored = tuple[float, list[CaseResult], Status, str]


def score_job(job: GradingJob, reference_payload: bytes, student_payload: bytes) -> Scored:
    """Score the student's payload against the reference's: (score, cases, status, message)."""
    try:
        cases = parse_cases(job.cases)
    except CaseError as error:
        return 0.0, [], Status.INTERNAL, f"invalid case: {error}"
    try:
        reference = _decoded(reference_payload, cases)
    except PayloadError as error:
        return 0.0, [], Status.INTERNAL, f"the reference's result is invalid: {error}"
    problem = _reference_problem(reference)
    if problem:
        return 0.0, [], Status.INTERNAL, problem
    try:
        student = _decoded(student_payload, cases)
    except PayloadError as error:
        return 0.0, [], Status.ERROR, f"invalid result: {error}"
    if student.harness_error:
        return 0.0, [], Status.INTERNAL, student.harness_error
    if student.load_error:
        message = format_error(student.load_error.as_dict())
        return 0.0, _all_failed(cases, "the answer did not load"), Status.ERROR, message
    return _judged(job, cases, reference, student)


def _decoded(payload: bytes, cases: list[Case]) -> ChildResult:
    result = decode_result(payload)
    if result.load_error or result.harness_error:
        return result
    if len(result.cases) != len(cases):
        raise PayloadError(f"{len(result.cases)} case records for {len(cases)} cases")
    for record, case in zip(result.cases, cases, strict=True):
        if record.name != case.name:
            raise PayloadError(f"case record {record.name!r} does not match case {case.name!r}")
    return result


def _reference_problem(reference: ChildResult) -> str:
    if reference.harness_error:
        return f"reference run: {reference.harness_error}"
    if reference.load_error:
        error = reference.load_error
        return f"the reference solution failed to load: {error.type}: {error.message}"
    return ""


def _judged(
    job: GradingJob, cases: list[Case], reference: ChildResult, student: ChildResult
) -> Scored:
    results: list[CaseResult] = []
    try:
        for case, mine, theirs in zip(cases, student.cases, reference.cases, strict=True):
            results.extend(judge_case(job, case, mine, theirs))
    except ReferenceFailure as error:
        return 0.0, [], Status.INTERNAL, f"the reference solution failed: {error}"
    hits = set(student.forbidden).union(*(record.forbidden for record in student.cases))
    forbidden = set(find_forbidden(job.source, job.forbidden)) | {
        name
        for name in job.forbidden
        if any(hit == name or hit.startswith(name + ".") for hit in hits)
    }
    total = sum(result.weight for result in results)
    earned = sum(result.weight for result in results if result.passed)
    score = earned / total if total > 0 else 0.0
    if forbidden:
        names = ", ".join(sorted(forbidden))
        return 0.0, results, Status.FORBIDDEN, f"forbidden: {names} (not allowed in this question)"
    passed = sum(result.passed for result in results)
    return score, results, Status.OK, f"{passed} of {len(results)} checks passed"


def _all_failed(cases: list[Case], message: str) -> list[CaseResult]:
    return [
        CaseResult(
            name=case.name,
            passed=False,
            weight=case.weight,
            message="hidden case failed" if case.hidden else f"case {case.index + 1}: {message}",
            hidden=case.hidden,
        )
        for case in cases
    ]

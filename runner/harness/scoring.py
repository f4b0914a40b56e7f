"""In the trusted supervisor: decode every payload and decide every verdict.

The student's answer runs twice at most: once on the visible cases (its
output and messages go back to the student) and once on the hidden cases
(nothing of that run goes back but pass or fail and the kind of failure).
The child's exit code and stdout play no part: only payload data, the job's
cases, the reference's data and the kernel's figures do. Nothing the
answer's process sends can make a result `internal`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runner.harness.audit import RUN_TIME_MARK
from runner.harness.child import ENTRY_AUTOGRAD
from runner.harness.judge import HIDDEN_MESSAGE, CaseContext, judge_case
from runner.harness.judge_common import ReferenceFailure, argument_labels, parameter_names
from runner.harness.judge_efficiency import TimingEvidence
from runner.harness.payload import PayloadError
from runner.harness.results import CaseRecord, ChildResult, decode_result
from runner.harness.spec import Case, parse_cases
from runner.harness.spec_values import CaseError
from runner.harness.static import WHY, find_forbidden
from runner.harness.tb import format_error
from runner.types import CaseResult, GradingJob, Status

Scored = tuple[float, list[CaseResult], Status, str]


@dataclass(frozen=True)
class Payloads:
    """What the runs of one grading sent back (payloads of runs that ended normally)."""

    reference: bytes
    visible: bytes | None = None  # the answer on the visible cases
    hidden: bytes | None = None  # the answer on the hidden cases
    timing: dict[int, TimingEvidence] = field(default_factory=dict)  # by case index


def visible_and_hidden(cases: list[Case]) -> tuple[list[int], list[int]]:
    """Case indexes of the visible and of the hidden cases."""
    return (
        [case.index for case in cases if not case.hidden],
        [case.index for case in cases if case.hidden],
    )


def score_job(job: GradingJob, payloads: Payloads) -> Scored:
    """Score the student's payloads against the reference's: (score, cases, status, message)."""
    try:
        cases = parse_cases(job.cases)
    except CaseError as error:
        return 0.0, [], Status.INTERNAL, f"invalid case: {error}"
    try:
        reference = _decoded(payloads.reference, cases)
    except PayloadError as error:
        return 0.0, [], Status.INTERNAL, f"the reference's result is invalid: {error}"
    problem = _reference_problem(reference)
    if problem:
        return 0.0, [], Status.INTERNAL, problem
    visible, hidden = visible_and_hidden(cases)
    try:
        runs = [
            _student_run(payloads.visible, [cases[i] for i in visible]),
            _student_run(payloads.hidden, [cases[i] for i in hidden]),
        ]
    except PayloadError as error:
        return 0.0, [], Status.ERROR, f"the answer's result could not be read: {error}"
    refusal = _unusable(runs, reference, job.entry_point)
    if refusal is not None:
        return 0.0, _all_failed(cases, refusal[1]), Status.ERROR, refusal[0]
    return _judged(job, cases, reference, runs, payloads.timing)


def _student_run(payload: bytes | None, cases: list[Case]) -> ChildResult | None:
    if not cases:
        return None
    if payload is None:
        raise PayloadError("no result came back")
    return _decoded(payload, cases)


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


def _unusable(
    runs: list[ChildResult | None], reference: ChildResult, entry_point: str
) -> tuple[str, str] | None:
    """(message, case message) when the answer cannot be graded at all, else None.

    Only the visible run's texts are shown; the hidden run's stay generic.
    """
    visible, hidden = runs
    for run, shown in ((visible, True), (hidden, False)):
        if run is None:
            continue
        if run.harness_error:
            return "the answer's result could not be read", "the answer did not run"
        if run.load_error:
            text = format_error(run.load_error.as_dict()) if shown else "the answer did not load"
            return text, "the answer did not load"
        if reference.entry_kind == ENTRY_AUTOGRAD and run.entry_kind != ENTRY_AUTOGRAD:
            text = (
                f"{entry_point} must be a subclass of torch.autograd.Function "
                f"(it is used as {entry_point}.apply)"
            )
            return text, text
    return None


def _records(cases: list[Case], runs: list[ChildResult | None]) -> dict[int, CaseRecord]:
    visible, hidden = visible_and_hidden(cases)
    records: dict[int, CaseRecord] = {}
    for run, indexes in zip(runs, (visible, hidden), strict=True):
        if run is not None:
            records.update(zip(indexes, run.cases, strict=True))
    return records


def _judged(
    job: GradingJob,
    cases: list[Case],
    reference: ChildResult,
    runs: list[ChildResult | None],
    timing: dict[int, TimingEvidence],
) -> Scored:
    names = parameter_names(job.reference_source, job.entry_point)
    records = _records(cases, runs)
    results: list[CaseResult] = []
    try:
        for case, theirs in zip(cases, reference.cases, strict=True):
            context = CaseContext(argument_labels(case, names), timing.get(case.index))
            results.extend(judge_case(job, case, records[case.index], theirs, context))
    except ReferenceFailure as error:
        return 0.0, [], Status.INTERNAL, f"the reference solution failed: {error}"
    hits = {name for run in runs if run for name in run.forbidden}
    hits |= {name for record in records.values() for name in record.forbidden}
    vetoed = sorted(hit for hit in hits if hit.endswith(RUN_TIME_MARK))
    if vetoed:
        return 0.0, results, Status.FORBIDDEN, f"the answer tried {', '.join(vetoed)}: {WHY}"
    forbidden = set(find_forbidden(job.source, job.forbidden)) | {
        name
        for name in job.forbidden
        if any(hit == name or hit.startswith(name + ".") for hit in hits)
    }
    total = sum(result.weight for result in results)
    earned = sum(result.weight for result in results if result.passed)
    score = earned / total if total > 0 else 0.0
    if forbidden:
        names_used = ", ".join(sorted(forbidden))
        message = f"forbidden: {names_used} (not allowed in this question)"
        return 0.0, results, Status.FORBIDDEN, message
    passed = sum(result.passed for result in results)
    return score, results, Status.OK, f"{passed} of {len(results)} checks passed"


def _all_failed(cases: list[Case], message: str) -> list[CaseResult]:
    return [
        CaseResult(
            name=case.name,
            passed=False,
            weight=case.weight,
            message=HIDDEN_MESSAGE if case.hidden else f"case {case.index + 1}: {message}",
            hidden=case.hidden,
        )
        for case in cases
    ]

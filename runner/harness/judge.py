"""Per-case verdicts and the feedback a student sees for them.

A visible case's message names the output or argument, the kind of
difference and what was expected. A hidden case's message says only which
kind of check failed (`FAILURE_KINDS`), never a value, an index or an error
text, since those could reveal the hidden inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from runner.harness.compare import compare
from runner.harness.judge_checks import JUDGES, JudgeInput
from runner.harness.judge_common import ReferenceFailure, reference_value, student_value
from runner.harness.judge_efficiency import TimingEvidence
from runner.harness.judge_training import judge_training
from runner.harness.outcome import FAILURE_KINDS, Outcome, Tolerance, worst
from runner.harness.results import CaseRecord
from runner.harness.spec import Case
from runner.harness.tb import format_error
from runner.types import HIDDEN_CASE_FAILED, CaseResult, GradingJob

HIDDEN_MESSAGE = HIDDEN_CASE_FAILED


@dataclass(frozen=True)
class CaseContext:
    """What the judges know besides the two records: input names and efficiency figures."""

    inputs: list[tuple[str, bool]] = field(default_factory=list)
    timing: TimingEvidence | None = None


def judge_case(
    job: GradingJob,
    case: Case,
    student: CaseRecord,
    reference: CaseRecord,
    context: CaseContext | None = None,
) -> list[CaseResult]:
    """CaseResults for one case: one for a call case, one per stage for training."""
    tolerance = Tolerance.merged(job.compare, case.compare)
    if case.kind == "training":
        stages = judge_training(case, student, reference, tolerance)
        total = sum(stage.weight for stage, _outcome in stages) or 1.0
        return [
            _result(
                case, outcome, f"{case.name}: {stage.check}", case.weight * stage.weight / total
            )
            for stage, outcome in stages
        ]
    outcome = judge_call(job, case, student, reference, tolerance, context or CaseContext())
    return [_result(case, outcome, case.name, case.weight)]


def judge_call(
    job: GradingJob,
    case: Case,
    student: CaseRecord,
    reference: CaseRecord,
    tolerance: Tolerance,
    context: CaseContext,
) -> Outcome:
    number = case.index + 1
    if reference.error is not None:
        error = reference.error
        raise ReferenceFailure(f"case {number}: it raised {error.type}: {error.message}")
    if student.error is not None:
        return Outcome(False, format_error(student.error.as_dict()), kind="error")
    parts: list[Outcome] = []
    if student.forbidden:
        names = ", ".join(student.forbidden)
        parts.append(Outcome(False, f"used {names}, which is not allowed", kind="forbidden"))
    if case.compare_output:
        expected = reference_value(reference, "output", number)
        parts.append(compare(student_value(student, "output"), expected, tolerance, "the output"))
    for check in case.checks:
        judge = JUDGES[check.kind]
        facts = JudgeInput(
            case,
            check,
            student,
            reference,
            tolerance,
            job.efficiency,
            context.inputs,
            context.timing,
        )
        parts.append(judge(facts))
    combined = worst(parts)
    # Each difference keeps its own values next to it; two checks can find the same one.
    failures = dict.fromkeys(part.clause for part in parts if not part.ok)
    return replace(combined, message="; ".join(failures), detail="") if failures else combined


def _result(case: Case, outcome: Outcome, name: str, weight: float) -> CaseResult:
    if case.hidden:
        message = "" if outcome.ok else f"{HIDDEN_MESSAGE}: {FAILURE_KINDS[outcome.kind]}"
        return CaseResult(name=name, passed=outcome.ok, weight=weight, message=message, hidden=True)
    message = "" if outcome.ok else f"case {case.index + 1}: {outcome.clause}"
    return CaseResult(
        name=name,
        passed=outcome.ok,
        weight=weight,
        message=message,
        max_abs_error=outcome.max_abs,
        max_rel_error=outcome.max_rel,
    )

"""An author's check of a code question's solutions before any student meets it.

The workers grade the reference, each correct_*.py and each wrong_*.py as they grade an
answer, and `runner.contract.solution_problem` judges each result as `runner_check` does:
full marks for the reference and the correct ones; less for each wrong one, failed by a case
the student sees. A broken reference, a case that catches no mistake or a limit too tight
for the reference shows here, not in a student's grade.
"""

import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from grading.content import code_files, reference_source, variant_content
from grading.errors import NotCheckable, SolutionCheckNotFound
from grading.services.variants import variant_generate
from quizbank.models import Question, QuestionVersion
from runner import api as runner_api
from runner.contract import (
    REFERENCE_FILE,
    CaseError,
    format_path,
    parse_code_question,
    solution_earns_full_marks,
    solution_files,
    solution_problem,
)

# A check's jobs still queued this long after it was asked for are dropped unrun (the
# workers are busy with an exam); the check then says so instead of waiting for ever.
QUEUE_PATIENCE_S = 120
_CHECK_ID = re.compile(r"^(\d{1,18})-(\d{1,12})-([0-9a-f]{16})$")
FULL_MARKS = "full marks"
BELOW_FULL_MARKS = "below full marks, failing a case students see"


@dataclass(frozen=True)
class SolutionVerdict:
    """One solution file's grading: `state` is waiting, as_labelled, problem or lost."""

    file: str
    expected: str
    state: str
    score: float | None
    problem: str


def _solutions(version: QuestionVersion) -> dict[str, str]:
    files = code_files(version.content)
    reference = reference_source(version.content)
    if reference:
        files[REFERENCE_FILE] = reference
    return solution_files(files)


def _job_id(check_id: str, index: int) -> str:
    return f"check-{check_id}-{index}"


def solution_check_start(*, question: Question, now: datetime) -> str:
    """Send every solution of the question's current version to the workers; the check's
    id. NotCheckable for a question that is not code or has no reference; the variant of
    a parameterised question is the one seed 0 gives."""
    version = question.current_version
    if question.type != "code" or version is None:
        raise NotCheckable("Only a code question has solutions to check.")
    solutions = _solutions(version)
    if REFERENCE_FILE not in solutions:
        raise NotCheckable(f"The question has no {REFERENCE_FILE} to check the others against.")
    params, answers = variant_generate(content=version.content, seed=0)
    variant = variant_content(version.content, params, answers)
    try:
        spec = parse_code_question(variant)
    except CaseError as error:
        raise NotCheckable(f"{format_path(error.path)}: {error.detail}") from None
    check_id = f"{version.pk}-{int(now.timestamp())}-{uuid.uuid4().hex[:16]}"
    reference = solutions[REFERENCE_FILE]
    for index, source in enumerate(solutions.values()):
        job = spec.job(job_id=_job_id(check_id, index), source=source, reference_source=reference)
        runner_api.submit_grading(job, expires_s=QUEUE_PATIENCE_S)
    return check_id


def solution_check_state(
    *, question: Question, check_id: str, now: datetime
) -> list[SolutionVerdict]:
    """Each solution's verdict so far. SolutionCheckNotFound for an id that is not a check
    of one of this question's versions."""
    parts = _CHECK_ID.match(check_id)
    version = None
    if parts is not None:
        version = QuestionVersion.objects.filter(pk=int(parts[1]), question=question).first()
    if parts is None or version is None:
        raise SolutionCheckNotFound("No such check of this question's solutions.")
    asked_at = datetime.fromtimestamp(int(parts[2]), tz=UTC)
    gave_up = now > asked_at + timedelta(seconds=QUEUE_PATIENCE_S + 5)
    return [
        _verdict(name, runner_api.job_progress(_job_id(check_id, index)), gave_up=gave_up)
        for index, name in enumerate(_solutions(version))
    ]


def _verdict(name: str, progress: runner_api.JobProgress, *, gave_up: bool) -> SolutionVerdict:
    expected = FULL_MARKS if solution_earns_full_marks(name) else BELOW_FULL_MARKS
    if progress.result is None:
        if gave_up and progress.claimed_at is None:
            lost = "No worker took it in time (the workers may be busy); check again."
            return SolutionVerdict(name, expected, "lost", None, lost)
        return SolutionVerdict(name, expected, "waiting", None, "")
    result = runner_api.GradingResult.from_dict(progress.result)
    problem = solution_problem(name, result)
    state = "problem" if problem else "as_labelled"
    return SolutionVerdict(name, expected, state, result.score, problem)


def solution_check_finished(verdicts: list[SolutionVerdict]) -> bool:
    return all(verdict.state != "waiting" for verdict in verdicts)

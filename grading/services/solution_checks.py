"""An author's check of a code question's solutions before any student meets it.

The workers grade the reference, each correct_*.py and each wrong_*.py as they grade an
answer, and `runner.contract.solution_problem` judges each result as `runner_check` does:
full marks for the reference and the correct ones; less for each wrong one, failed by a case
the student sees. A broken reference, a case that catches no mistake or a limit too tight
for the reference shows here, not in a student's grade.
"""

import re
import uuid
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from grading.content import code_files, reference_source, variant_content
from grading.errors import NotCheckable, SolutionCheckNotFound
from grading.services.variants import variant_generate
from quizbank.bankfiles.schema import MAX_CODE_FILES
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
# workers are busy with an exam); one a worker took and never finished (the worker died) is
# given up once its own time limit has passed too. The check says so instead of waiting.
QUEUE_PATIENCE_S = 120
_GIVE_UP_MARGIN_S = 10
# The longest a check may run: a check id promising more was not made here.
_LONGEST_CHECK = timedelta(days=1)
# A parameterised question's variant comes from a worker; the request waits this long.
GENERATOR_WAIT_S = 5.0
CHECK_ID_PATTERN = r"(\d{1,18})-(\d{1,12})-([0-9a-f]{16})"
_CHECK_ID = re.compile(CHECK_ID_PATTERN)
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


def _solutions(content: dict[str, Any]) -> dict[str, str]:
    files = code_files(content)
    reference = reference_source(content)
    if reference:
        files[REFERENCE_FILE] = reference
    return solution_files(files)


def _job_id(check_id: str, index: int) -> str:
    return f"check-{check_id}-{index}"


def solution_check_start(*, question: Question, now: datetime) -> str:
    """Send every solution of the question's current version to the workers; the check's
    id. NotCheckable for a question that is not code, has no reference or too many files;
    a parameterised question is checked on the variant seed 0 gives (its generator run on
    a worker, waited for GENERATOR_WAIT_S), the variant students' answers are graded on."""
    version = question.current_version
    if question.type != "code" or version is None:
        raise NotCheckable("Only a code question has solutions to check.")
    params, answers = variant_generate(content=version.content, seed=0, timeout_s=GENERATOR_WAIT_S)
    variant = variant_content(version.content, params, answers)
    solutions = _solutions(variant)
    if REFERENCE_FILE not in solutions:
        raise NotCheckable(f"The question has no {REFERENCE_FILE} to check the others against.")
    if len(solutions) > MAX_CODE_FILES:
        raise NotCheckable(
            f"The question has {len(solutions)} solutions; at most {MAX_CODE_FILES}."
        )
    try:
        spec = parse_code_question(variant)
    except CaseError as error:
        raise NotCheckable(f"{format_path(error.path)}: {error.detail}") from None
    reference = solutions[REFERENCE_FILE]
    jobs = [
        spec.job(job_id="", source=source, reference_source=reference)
        for source in solutions.values()
    ]
    longest_s = max(runner_api.grading_time_limit_s(job) for job in jobs)
    give_up = now + timedelta(seconds=QUEUE_PATIENCE_S + longest_s + _GIVE_UP_MARGIN_S)
    check_id = f"{version.pk}-{int(give_up.timestamp())}-{uuid.uuid4().hex[:16]}"
    for index, job in enumerate(jobs):
        runner_api.submit_grading(
            replace(job, job_id=_job_id(check_id, index)), expires_s=QUEUE_PATIENCE_S
        )
    return check_id


def solution_check_state(
    *, question: Question, check_id: str, now: datetime
) -> list[SolutionVerdict]:
    """Each solution's verdict so far. SolutionCheckNotFound for an id that is not a check
    of one of this question's versions."""
    version, give_up = _check_of(question, check_id, now)
    names = list(_solutions(version.content))
    jobs = [_job_id(check_id, index) for index in range(len(names))]
    progress = runner_api.jobs_progress(jobs)
    return [
        _verdict(name, progress[job], lost=now > give_up)
        for name, job in zip(names, jobs, strict=True)
    ]


def _check_of(question: Question, check_id: str, now: datetime) -> tuple[QuestionVersion, datetime]:
    """The version a check id names, and when its jobs are given up."""
    parts = _CHECK_ID.fullmatch(check_id)
    version, give_up = None, None
    if parts is not None:
        version = QuestionVersion.objects.filter(pk=int(parts[1]), question=question).first()
        try:
            give_up = datetime.fromtimestamp(int(parts[2]), tz=UTC)
        except (ValueError, OverflowError, OSError):  # a year past 9999
            give_up = None
    if version is None or give_up is None or give_up > now + _LONGEST_CHECK:
        raise SolutionCheckNotFound("No such check of this question's solutions.")
    return version, give_up


def _verdict(name: str, progress: runner_api.JobProgress, *, lost: bool) -> SolutionVerdict:
    expected = FULL_MARKS if solution_earns_full_marks(name) else BELOW_FULL_MARKS
    if progress.result is None:
        if lost:
            why = "No worker graded it in time (the workers are busy, or one stopped); try again."
            return SolutionVerdict(name, expected, "lost", None, why)
        return SolutionVerdict(name, expected, "waiting", None, "")
    result = runner_api.GradingResult.from_dict(progress.result)
    problem = solution_problem(name, result)
    state = "problem" if problem else "as_labelled"
    return SolutionVerdict(name, expected, state, result.score, problem)


def solution_check_finished(verdicts: list[SolutionVerdict]) -> bool:
    """Whether every solution has its verdict (none still waiting for a worker)."""
    return all(verdict.state != "waiting" for verdict in verdicts)

"""Benchmark: bulk regrade of many graded code answers on the running workers.

Call inside `worker_processes(...)` with the bench scenario; the answers are stored
with score 0 (as after a broken test) so that every regrade changes and logs a score.
"""

import logging
import time
import uuid

from django.contrib.auth.models import User
from django.utils import timezone

from grading.bench.scenario import SOURCE, Scenario
from grading.models import Attempt, AttemptStatus, Response, ResponseStatus
from grading.models.regrade import RegradeMode, RegradeRun, RegradeStatus
from grading.services.regrade.runs import regrade_run_start
from quizbank.models import Question, Quiz

log = logging.getLogger(__name__)


def _seed(scenario: Scenario, count: int) -> tuple[Quiz, Question]:
    """A fresh quiz of the scenario's course holding only `count` graded code answers."""
    question = scenario.quiz.slots.get(position=0).question
    if question is None or question.current_version is None:
        raise RuntimeError("the bench scenario's first slot has no current question version")
    slug = f"regrade-{uuid.uuid4().hex[:8]}"
    quiz = Quiz.objects.create(course=scenario.quiz.course, slug=slug, title="Regrade bench")
    now = timezone.now()
    attempts = Attempt.objects.bulk_create(
        Attempt(
            quiz=quiz,
            user=scenario.student,
            number=i + 1,
            seed=i,
            status=AttemptStatus.GRADED,
            started_at=now,
            submitted_at=now,
            graded_at=now,
            score=0,
            max_score=1,
        )
        for i in range(count)
    )
    Response.objects.bulk_create(
        Response(
            attempt=a,
            position=0,
            slot_position=0,
            question_version=question.current_version,
            points=1,
            answer={"source": SOURCE},
            status=ResponseStatus.GRADED,
            score=0.0,
            graded_at=now,
        )
        for a in attempts
    )
    return quiz, question


def bench_regrade_run(
    scenario: Scenario, count: int = 1000, timeout_s: float = 300.0
) -> RegradeRun:
    """Seed `count` graded code answers, regrade them all and wait; the finished run."""
    quiz, question = _seed(scenario, count)
    examiner, _ = User.objects.get_or_create(username="grading-bench-examiner")
    run = regrade_run_start(
        quiz=quiz,
        question=question,
        mode=RegradeMode.KEEP,
        reason="benchmark",
        actor=examiner,
        now=timezone.now(),
    )
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status == RegradeStatus.DONE:
            return run
        time.sleep(0.05)
    raise TimeoutError(f"regrade of {count} answers not done in {timeout_s} s: {run.done} done")


def bench_regrade(scenario: Scenario, count: int = 1000, timeout_s: float = 300.0) -> float:
    """Seconds to regrade `count` code answers, from starting the run until it is done."""
    began = time.perf_counter()
    run = bench_regrade_run(scenario, count, timeout_s)
    elapsed = time.perf_counter() - began
    if run.failed:
        log.warning("regrade bench: %s of %s answers failed", run.failed, run.total)
    return elapsed

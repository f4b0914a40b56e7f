"""Code answers are regraded by real worker processes on the real broker."""

import time

import pytest
from django.utils import timezone

from config.celery_workers import worker_processes
from grading.models import Attempt, AttemptStatus, Response, ResponseStatus
from grading.models.marking import ScoreChange
from grading.models.regrade import RegradeRun, RegradeStatus
from grading.services.regrade.runs import regrade_run_start
from tests.grading.content import CODE
from tests.grading.factories import staffed_quiz

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

RIGHT = "def double(x):\n    return x * 2\n"
WRONG = "def double(x):\n    return x + 2\n"


def test_workers_regrade_code_answers_and_log_each_change(redis_url: str) -> None:
    staff, (code,) = staffed_quiz(CODE, points="2")
    version = code.versions.get()
    now = timezone.now()
    # Scores as a broken test left them: the right answer failed, the wrong one passed.
    for number, (source, stored) in enumerate(((RIGHT, 0.0), (WRONG, 1.0)), start=1):
        attempt = Attempt.objects.create(
            quiz=staff.quiz,
            user=staff.student,
            number=number,
            seed=number,
            status=AttemptStatus.GRADED,
            started_at=now,
            score=2 * stored,
            max_score=2,
        )
        Response.objects.create(
            attempt=attempt,
            position=0,
            slot_position=0,
            question_version=version,
            points=2,
            answer={"source": source},
            status=ResponseStatus.GRADED,
            score=stored,
        )
    with worker_processes(redis_url, count=1):
        run = regrade_run_start(
            quiz=staff.quiz,
            question=code,
            mode="keep",
            reason="test fixed",
            actor=staff.examiner,
            now=now,
        )
        deadline = time.monotonic() + 120
        while run.status != RegradeStatus.DONE and time.monotonic() < deadline:
            time.sleep(0.1)
            run = RegradeRun.objects.get(pk=run.pk)
    assert (run.status, run.done, run.changed, run.failed) == ("done", 2, 2, 0)
    right, wrong = Response.objects.order_by("attempt__number")
    assert right.score == 1.0
    assert wrong.score is not None
    assert wrong.score < 1.0
    assert right.feedback["cases"][0]["passed"] is True
    assert Attempt.objects.get(pk=right.attempt_id).score == 2
    log = ScoreChange.objects.order_by("response__attempt__number")
    assert [(c.before, c.actor_id) for c in log] == [
        (0.0, staff.examiner.pk),
        (1.0, staff.examiner.pk),
    ]

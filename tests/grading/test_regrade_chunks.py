"""Regrade chunks: graded in this process, written at once, safe to deliver twice."""

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from grading.models import Attempt, AttemptStatus, Response, ResponseStatus
from grading.models.marking import ScoreChange
from grading.models.regrade import RegradeItem, RegradeRun
from grading.services.regrade.runs import regrade_chunk, regrade_lanes, regrade_run_start
from grading.tasks import regrade_chunk_task
from quizbank.models import Question
from runner.worker import grade
from tests.grading.content import CODE, SINGLE
from tests.grading.factories import Staff, new_version, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db

RIGHT = "def double(x):\n    return x * 2\n"
WRONG = "def double(x):\n    return x + 2\n"
BROKEN = {**SINGLE, "choices": [{**c, "correct": i == 1} for i, c in enumerate(SINGLE["choices"])]}


def _run(staff: Staff, question: Question, mode: str, capture: Any) -> RegradeRun:
    """A started run whose dispatch task is left unsent, so chunks can be delivered by hand."""
    with capture(execute=False):
        return regrade_run_start(
            quiz=staff.quiz,
            question=question,
            mode=mode,
            reason="key fixed",
            actor=staff.examiner,
            now=timezone.now(),
        )


def _item_ids(run: RegradeRun) -> list[int]:
    return list(RegradeItem.objects.filter(run=run).order_by("pk").values_list("pk", flat=True))


def _code_answers(staff: Staff, question: Question, sources: list[tuple[str, float]]) -> None:
    """Graded code answers with the stored scores a broken test left behind."""
    version, now = question.versions.get(), timezone.now()
    for number, (source, stored) in enumerate(sources, start=1):
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


@pytest.fixture
def choice_run(django_capture_on_commit_callbacks: Any) -> RegradeRun:
    staff, (question,) = staffed_quiz(BROKEN, points="2")
    for pick in (0, 0, 1):
        student = User.objects.create(username=f"chunk-{pick}-{User.objects.count()}")
        staff.course.memberships.create(user=student, role="student")
        submitted_attempt(staff.quiz, student, {0: {"choice": pick}})
    new_version(question, SINGLE)
    return _run(staff, question, "apply", django_capture_on_commit_callbacks)


def test_a_chunk_delivered_twice_logs_and_counts_each_answer_once(choice_run: RegradeRun) -> None:
    ids = _item_ids(choice_run)
    assert regrade_chunk_task(choice_run.pk, ids) == 3
    assert regrade_chunk_task(choice_run.pk, ids) == 3  # the redelivery finds nothing pending
    run = RegradeRun.objects.get(pk=choice_run.pk)
    assert (run.status, run.done, run.changed, run.failed) == ("done", 3, 3, 0)
    assert ScoreChange.objects.filter(regrade_run=run).count() == 3
    scores = Response.objects.order_by("attempt_id").values_list("score", flat=True)
    assert list(scores) == [1.0, 1.0, 0.0]


def test_overlapping_chunks_regrade_the_shared_answers_once(choice_run: RegradeRun) -> None:
    first, second, third = _item_ids(choice_run)
    regrade_chunk(run_id=choice_run.pk, item_ids=[first, second], now=timezone.now(), grade=grade)
    regrade_chunk(run_id=choice_run.pk, item_ids=[second, third], now=timezone.now(), grade=grade)
    run = RegradeRun.objects.get(pk=choice_run.pk)
    assert (run.done, run.changed) == (3, 3)
    assert sorted(ScoreChange.objects.values_list("response_id", flat=True)) == sorted(
        RegradeItem.objects.values_list("response_id", flat=True)
    )


def test_a_chunk_out_of_time_hands_back_what_it_did_not_grade(choice_run: RegradeRun) -> None:
    ids = _item_ids(choice_run)
    left = regrade_chunk(
        run_id=choice_run.pk, item_ids=ids, now=timezone.now(), grade=grade, budget_s=-1
    )
    assert left == ids
    run = RegradeRun.objects.get(pk=choice_run.pk)
    assert (run.done, run.status) == (0, "pending")
    assert not ScoreChange.objects.exists()


def test_code_answers_are_graded_in_the_chunk_and_written_once(
    django_capture_on_commit_callbacks: Any, django_assert_max_num_queries: Any
) -> None:
    staff, (code,) = staffed_quiz(CODE, points="2")
    _code_answers(staff, code, [(RIGHT, 0.0), (WRONG, 1.0), (RIGHT, 1.0), (RIGHT, 0.0)])
    run = _run(staff, code, "keep", django_capture_on_commit_callbacks)
    ids = _item_ids(run)
    # Reads, locks, bulk writes, totals, progress and the LMS receivers' reads (line items,
    # webhook subscriptions): a fixed count, whatever the chunk size.
    with django_assert_max_num_queries(17):
        regrade_chunk(run_id=run.pk, item_ids=ids, now=timezone.now(), grade=grade)
    regrade_chunk(run_id=run.pk, item_ids=ids, now=timezone.now(), grade=grade)
    run.refresh_from_db()
    assert (run.status, run.done, run.changed, run.failed) == ("done", 4, 3, 0)
    scores = list(Response.objects.order_by("attempt__number").values_list("score", flat=True))
    assert scores[0] == scores[2] == scores[3] == 1.0
    assert scores[1] is not None
    assert scores[1] < 1.0
    assert ScoreChange.objects.filter(regrade_run=run).count() == 3
    totals = Attempt.objects.order_by("number").values_list("score", flat=True)
    assert [float(t or 0) for t in totals][0] == pytest.approx(2.0)


def test_code_chunks_go_to_the_queue_of_their_device(
    django_capture_on_commit_callbacks: Any,
) -> None:
    staff, (cpu_code, choice) = staffed_quiz(CODE, SINGLE, points="2")
    _code_answers(staff, cpu_code, [(RIGHT, 0.0)])
    run = _run(staff, cpu_code, "keep", django_capture_on_commit_callbacks)
    assert regrade_lanes(run) == {"cpu": _item_ids(run)}
    RegradeRun.objects.filter(pk=run.pk).update(status="done")  # a second run waits for it
    new_version(cpu_code, {**CODE, "device": "cuda"})
    applied = _run(staff, cpu_code, "apply", django_capture_on_commit_callbacks)
    assert regrade_lanes(applied) == {"gpu": _item_ids(applied)}
    student = User.objects.create(username="lane-student")
    staff.course.memberships.create(user=student, role="student")
    submitted_attempt(staff.quiz, student, {1: {"choice": 0}})
    choice_run = _run(staff, choice, "keep", django_capture_on_commit_callbacks)
    assert regrade_lanes(choice_run) == {"default": _item_ids(choice_run)}

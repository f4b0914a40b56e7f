"""What marking records: the score, feedback and grading time, and who changed what and why."""

from datetime import UTC, datetime, timedelta

import pytest

from grading.models import Attempt, AttemptStatus, Response, ResponseStatus
from grading.models.marking import MarkChange, MarkingState, QuizMarkingPolicy, ScoreChange
from grading.services.marking.marks import MarkInput, mark_create, mark_update, second_mark_request
from grading.services.marking.outcome import level_feedback, rubric_of
from tests.grading.content import VIVA_TWO_CRITERIA
from tests.grading.factories import Staff, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
T1, T2, T3 = (T0 + timedelta(minutes=m) for m in (1, 2, 3))


@pytest.fixture
def setup() -> tuple[Staff, Response]:
    staff, _ = staffed_quiz(VIVA_TWO_CRITERIA)
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "It sums."}}, now=T0)
    return staff, attempt.responses.get()


def fresh(response: Response) -> Response:
    return Response.objects.get(pk=response.pk)


def score_log(response: Response) -> list[tuple[float | None, float | None, str, str, int | None]]:
    rows = ScoreChange.objects.filter(response=response).order_by("pk")
    return [(r.before, r.after, r.source, r.reason, r.actor_id) for r in rows]


def test_a_mark_grades_the_answer_at_that_instant_with_the_examiners_feedback(
    setup: tuple[Staff, Response],
) -> None:
    staff, response = setup
    data = MarkInput([2, 1], adjustment=0.5, adjustment_reason="Nice example", comment="Good.")
    mark_create(response_id=response.pk, marker=staff.examiner, data=data, now=T1)
    graded = fresh(response)
    assert (graded.status, graded.score, graded.graded_at) == (
        ResponseStatus.GRADED,
        0.75,
        T1,  # (2 + 2 + 0.5) / 6
    )
    rubric = level_feedback(rubric_of(VIVA_TWO_CRITERIA), [2, 1])
    assert graded.feedback == {
        "marks": [
            {
                "rubric": rubric,
                "comment": "Good.",
                "adjustment": 0.5,
                "adjustment_reason": "Nice example",
                "rubric_points": 4.5,  # levels worth 4, plus the adjustment
                "rubric_maximum": 6.0,  # 0.75 of it: the score
            },
        ]
    }
    assert score_log(response) == [(None, 0.75, "marking", "marking: final", staff.examiner.pk)]
    change = MarkChange.objects.get(response=response)
    assert (change.reason, change.actor, change.before) == ("", staff.examiner, None)
    assert Attempt.objects.get(pk=response.attempt_id).graded_at == T1


def test_changing_a_mark_keeps_the_grading_time_unless_the_score_moves(
    setup: tuple[Staff, Response],
) -> None:
    staff, response = setup
    mark = mark_create(
        response_id=response.pk, marker=staff.examiner, data=MarkInput([1, 1]), now=T1
    )
    same_score = MarkInput([1, 1], comment="Clearer now.", reason="typo")
    mark_update(mark_id=mark.pk, marker=staff.examiner, data=same_score, now=T2)
    assert fresh(response).graded_at == T1
    assert len(score_log(response)) == 1
    moved = MarkInput([2, 2], reason=" misread the answer ")
    mark_update(mark_id=mark.pk, marker=staff.examiner, data=moved, now=T3)
    graded = fresh(response)
    assert (graded.score, graded.graded_at) == (1.0, T3)
    assert score_log(response)[-1] == (
        0.5,
        1.0,
        "marking",
        "marking: final; misread the answer",
        staff.examiner.pk,
    )
    reasons = list(MarkChange.objects.filter(response=response).values_list("reason", "actor"))
    assert reasons == [
        ("", staff.examiner.pk),
        ("typo", staff.examiner.pk),
        ("misread the answer", staff.examiner.pk),
    ]


def test_an_answer_waiting_for_its_second_mark_has_no_score_feedback_or_grading_time(
    setup: tuple[Staff, Response],
) -> None:
    staff, response = setup
    QuizMarkingPolicy.objects.create(quiz=staff.quiz, double_marking=True)
    mark_create(response_id=response.pk, marker=staff.examiner, data=MarkInput([2, 2]), now=T1)
    waiting = fresh(response)
    assert (waiting.status, waiting.score, waiting.graded_at, waiting.feedback) == (
        ResponseStatus.NEEDS_MARKING,
        None,
        None,
        {},
    )
    assert Attempt.objects.get(pk=response.attempt_id).status == AttemptStatus.SUBMITTED


def test_asking_for_a_second_mark_withdraws_a_final_score_until_the_second_mark_comes(
    setup: tuple[Staff, Response],
) -> None:
    staff, response = setup
    mark_create(response_id=response.pk, marker=staff.examiner, data=MarkInput([2, 2]), now=T1)
    status = second_mark_request(response_id=response.pk, examiner=staff.moderator, now=T2)
    assert status == "awaiting_second"
    assert MarkingState.objects.get(response=response).second_requested is True
    waiting = fresh(response)
    assert (waiting.status, waiting.score, waiting.graded_at, waiting.feedback) == (
        ResponseStatus.NEEDS_MARKING,
        None,
        None,
        {},
    )
    assert score_log(response)[-1] == (
        1.0,
        None,
        "marking",
        "marking: awaiting_second",
        staff.moderator.pk,
    )
    mark_create(response_id=response.pk, marker=staff.second, data=MarkInput([2, 1]), now=T3)
    assert fresh(response).graded_at is None  # 1 and 4/6 are a third apart: flagged
    assert MarkingState.objects.get(response=response).status == "flagged"


def test_a_second_mark_asked_for_before_the_first_makes_the_first_mark_wait(
    setup: tuple[Staff, Response],
) -> None:
    staff, response = setup
    status = second_mark_request(response_id=response.pk, examiner=staff.examiner, now=T1)
    assert status == "unmarked"
    state = MarkingState.objects.get(response=response)
    assert (state.second_requested, state.updated_at) == (True, T1)
    mark_create(response_id=response.pk, marker=staff.examiner, data=MarkInput([2, 2]), now=T2)
    assert MarkingState.objects.get(response=response).status == "awaiting_second"
    assert fresh(response).score is None

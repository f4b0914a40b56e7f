"""A quiz's marking policy: the site default threshold, its bounds, and changing it."""

from datetime import UTC, datetime

import pytest
from django.test import override_settings

from grading.errors import InvalidMark
from grading.models import Response
from grading.models.marking import MarkingState, QuizMarkingPolicy
from grading.services.marking.marks import MarkInput, mark_create, second_mark_request
from grading.services.marking.policy import marking_policy_set
from tests.grading.content import VIVA_TWO_CRITERIA
from tests.grading.factories import Staff, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def setup() -> tuple[Staff, Response]:
    staff, _ = staffed_quiz(VIVA_TWO_CRITERIA)
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "It sums."}}, now=NOW)
    return staff, attempt.responses.get()


def _two_marks_a_third_apart(staff: Staff, response: Response) -> str:
    """Full marks, a second mark asked for, then 4 of 6: the answer's marking status."""
    mark_create(response_id=response.pk, marker=staff.examiner, data=MarkInput([2, 2]), now=NOW)
    second_mark_request(response_id=response.pk, examiner=staff.examiner, now=NOW)
    mark_create(response_id=response.pk, marker=staff.second, data=MarkInput([2, 1]), now=NOW)
    return MarkingState.objects.get(response=response).status


def test_without_a_policy_marks_more_than_the_default_fifth_apart_are_flagged(
    setup: tuple[Staff, Response],
) -> None:
    assert _two_marks_a_third_apart(*setup) == "flagged"


@override_settings(GRADING_DISAGREEMENT_THRESHOLD=0.5)
def test_without_a_policy_the_sites_threshold_setting_decides(
    setup: tuple[Staff, Response],
) -> None:
    staff, response = setup
    assert _two_marks_a_third_apart(staff, response) == "final"
    response.refresh_from_db()
    assert response.score == pytest.approx((1 + 4 / 6) / 2)


@pytest.mark.parametrize("threshold", [0.0, 1.0])
def test_a_threshold_may_be_anything_from_zero_to_the_whole_maximum(
    setup: tuple[Staff, Response], threshold: float
) -> None:
    staff, _ = setup
    policy = marking_policy_set(
        quiz=staff.quiz, double_marking=True, disagreement_threshold=threshold
    )
    assert QuizMarkingPolicy.objects.get(quiz=staff.quiz).disagreement_threshold == threshold
    assert policy.quiz == staff.quiz


@pytest.mark.parametrize("threshold", [-0.01, 1.01])
def test_a_threshold_outside_zero_to_one_is_refused_naming_the_field(
    setup: tuple[Staff, Response], threshold: float
) -> None:
    staff, _ = setup
    with pytest.raises(InvalidMark) as refused:
        marking_policy_set(quiz=staff.quiz, double_marking=True, disagreement_threshold=threshold)
    assert refused.value.message == (
        "The disagreement threshold is a share of the maximum, between 0 and 1."
    )
    assert refused.value.fields == {"disagreement_threshold": ["must be between 0 and 1"]}
    assert not QuizMarkingPolicy.objects.exists()


def test_setting_a_policy_again_changes_it_and_keeps_anonymous_marking_unless_given(
    setup: tuple[Staff, Response],
) -> None:
    quiz = setup[0].quiz
    marking_policy_set(
        quiz=quiz, double_marking=True, disagreement_threshold=0.3, anonymous_marking=True
    )
    marking_policy_set(quiz=quiz, double_marking=False, disagreement_threshold=0.1)
    policy = QuizMarkingPolicy.objects.get(quiz=quiz)
    assert (policy.double_marking, policy.disagreement_threshold, policy.anonymous_marking) == (
        False,
        0.1,
        True,
    )
    marking_policy_set(
        quiz=quiz, double_marking=False, disagreement_threshold=0.1, anonymous_marking=False
    )
    assert QuizMarkingPolicy.objects.get(quiz=quiz).anonymous_marking is False

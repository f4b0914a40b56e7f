"""The pure marking rules: marks to a final score, and rubric arithmetic (no database)."""

from typing import Any

import pytest

from grading.errors import InvalidMark
from grading.models.marking import MarkingStatus, MarkRole
from grading.services.marking.outcome import (
    level_feedback,
    mark_score,
    marking_outcome,
    rubric_maximum,
    rubric_of,
    rubric_points,
)
from tests.grading.content import VIVA_TWO_CRITERIA

RUBRIC = rubric_of(VIVA_TWO_CRITERIA)  # Mechanism 0/1/2 and Practice 0/2/4: maximum 6
FIRST, SECOND, MODERATOR = MarkRole.FIRST, MarkRole.SECOND, MarkRole.MODERATOR


def outcome(needs_second: bool = False, threshold: float = 0.2, **scores: float) -> Any:
    return marking_outcome(scores, needs_second=needs_second, threshold=threshold)


def test_no_mark_is_unmarked_whether_or_not_a_second_mark_is_needed() -> None:
    assert outcome() == (MarkingStatus.UNMARKED, None)
    assert outcome(needs_second=True) == (MarkingStatus.UNMARKED, None)


def test_a_single_mark_is_final_unless_a_second_one_is_needed() -> None:
    assert outcome(first=0.5) == (MarkingStatus.FINAL, 0.5)
    assert outcome(needs_second=True, first=0.5) == (MarkingStatus.AWAITING_SECOND, None)
    # A second mark left alone (its first mark gone) decides in the same way.
    assert outcome(second=0.25) == (MarkingStatus.FINAL, 0.25)


def test_two_marks_exactly_one_threshold_apart_agree_and_give_their_mean() -> None:
    assert outcome(threshold=0.25, first=0.75, second=0.5) == (MarkingStatus.FINAL, 0.625)
    assert outcome(threshold=0.125, first=0.75, second=0.5) == (MarkingStatus.FLAGGED, None)


def test_marks_further_apart_than_the_threshold_only_by_rounding_still_agree() -> None:
    first = 0.25 + 1e-9  # the slack the rule allows for rounding
    assert outcome(threshold=0.25, first=first, second=0.0)[0] == MarkingStatus.FINAL


def test_a_moderators_mark_is_final_whatever_the_others_say() -> None:
    scores: dict[str, float] = {FIRST: 1.0, SECOND: 0.0, MODERATOR: 0.4}
    assert marking_outcome(scores, needs_second=True, threshold=0.2) == (
        MarkingStatus.MODERATED,
        0.4,
    )


def test_the_score_is_the_share_of_the_maximum_after_the_adjustment() -> None:
    assert mark_score(RUBRIC, [2, 2], 0.0) == (6.0, 1.0)
    points, share = mark_score(RUBRIC, [1, 1], 1.0)
    assert points == 3.0
    assert share == pytest.approx(4 / 6)
    assert mark_score(RUBRIC, [0, 0], 0.0) == (0.0, 0.0)


@pytest.mark.parametrize(
    ("levels", "adjustment", "field"),
    [([2, 2], 1.0, "6 + 1 is out of range"), ([1, 0], -2.0, "1 + -2 is out of range")],
)
def test_an_adjustment_outside_zero_to_the_maximum_is_refused_not_clamped(
    levels: list[int], adjustment: float, field: str
) -> None:
    with pytest.raises(InvalidMark) as refused:
        mark_score(RUBRIC, levels, adjustment)
    assert refused.value.message == "Rubric points plus adjustment must lie between 0 and 6."
    assert refused.value.fields == {"adjustment": [field]}


def test_an_adjustment_past_a_bound_only_by_rounding_is_accepted_at_the_bound() -> None:
    assert mark_score(RUBRIC, [2, 2], 1e-9) == (6.0, 1.0)
    assert mark_score(RUBRIC, [0, 0], -1e-9) == (0.0, 0.0)


def test_a_rubric_worth_nothing_cannot_be_marked_and_one_worth_a_point_can() -> None:
    worthless = [{"criterion": "Zero", "levels": [{"points": 0}]}]
    with pytest.raises(InvalidMark, match="between 0 and 0"):
        mark_score(worthless, [0], 0.0)
    one_point = [{"criterion": "One", "levels": [{"points": 0}, {"points": 1}]}]
    assert mark_score(one_point, [1], 0.0) == (1.0, 1.0)


def test_a_mark_needs_one_level_per_criterion() -> None:
    with pytest.raises(InvalidMark) as refused:
        rubric_points(RUBRIC, [2])
    assert refused.value.message == "Pick one level for each of the 2 criteria; got 1."
    assert refused.value.fields == {"levels": ["expected 2 entries"]}


def test_a_level_a_criterion_does_not_have_is_refused_naming_the_criterion() -> None:
    with pytest.raises(InvalidMark) as refused:
        rubric_points(RUBRIC, [0, 3])
    # Counted from 1, as the marking page numbers levels; the field keeps the request's index.
    assert refused.value.message == "The criterion 2 (Practice) has 3 levels; there is no level 4."
    assert refused.value.fields == {"levels[1]": ["must be between 0 and 2"]}
    with pytest.raises(
        InvalidMark, match="The criterion 1 \\(\\) has 0 levels; there is no level 1"
    ):
        rubric_points([{}], [0])


def test_the_maximum_adds_each_criterions_best_level_and_nothing_for_one_without_levels() -> None:
    assert rubric_maximum(RUBRIC) == 6.0
    rubric: list[dict[str, Any]] = [
        {"levels": [{"points": 3}, {"points": 1}]},
        {"criterion": "Empty"},
        {"levels": []},
    ]
    assert rubric_maximum(rubric) == 3.0
    assert rubric_of({}) == []


def test_a_student_sees_each_chosen_level_with_its_label_points_and_descriptor() -> None:
    assert level_feedback(RUBRIC, [0, 2]) == [
        {"criterion": "Mechanism", "level": "Missing", "points": 0.0, "descriptor": "No mention."},
        {
            "criterion": "Practice",
            "level": "Full",
            "points": 4.0,
            "descriptor": "zero_grad each step.",
        },
    ]


def test_feedback_skips_levels_a_criterion_lacks_and_fills_missing_texts_with_nothing() -> None:
    rubric: list[dict[str, Any]] = [{"levels": [{"points": 1}]}, {"criterion": "Gone"}]
    assert level_feedback(rubric, [0, 0]) == [
        {"criterion": "", "level": "", "points": 1.0, "descriptor": ""}
    ]
    assert level_feedback(rubric, [1]) == []
    assert level_feedback(rubric, [0]) == level_feedback(rubric, [0, 0])


def test_a_criterion_left_without_a_level_is_asked_for_by_its_number_from_one() -> None:
    with pytest.raises(InvalidMark) as refused:
        rubric_points(RUBRIC, [0, -1])
    assert refused.value.message == "Choose a level for criterion 2 (Practice)."

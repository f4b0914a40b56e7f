"""Item statistics and marker agreement against values worked out by hand."""

import math
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from grading.statistics.agreement import (
    criterion_agreement,
    most_disputed,
    quadratic_weighted_kappa,
)
from grading.statistics.collect import AttemptRow
from grading.statistics.items import (
    choice_rates,
    corrected_item_total,
    discrimination_index,
    distribution,
    facility,
    median,
)
from grading.statistics.scope import AttemptScope, first_per_student, in_scope


def test_facility_is_the_mean_share_of_marks() -> None:
    assert facility([1, 0.5, 0, 0.5]) == 0.5
    assert facility([]) is None


def test_discrimination_compares_the_top_and_bottom_27_percent() -> None:
    # n = 10 -> groups of round(2.7) = 3. By total, the bottom three are attempts 2, 3, 5
    # (item scores 0, 0, 0) and the top three are 4, 1, 0 (scores 1, 0, 1): 2/3 - 0.
    scores = [1, 0, 0, 0, 1, 0, 1, 0, 0, 1]
    totals = [10, 9, 1, 2, 8, 3, 7, 4, 5, 6]
    assert discrimination_index(scores, totals) == pytest.approx(2 / 3)
    assert discrimination_index([1], [3]) is None


def test_the_corrected_item_total_correlation_leaves_the_item_out() -> None:
    # rest = total - item = [3, 1, 2, 1]; r = 1.5 / sqrt(1 * 2.75).
    assert corrected_item_total([1, 0, 1, 0], [4, 1, 3, 1]) == pytest.approx(1.5 / math.sqrt(2.75))
    assert corrected_item_total([1, 1], [2, 3]) is None  # an item nobody missed has no spread


def test_choice_rates_count_each_answer_once_per_choice() -> None:
    assert choice_rates([[0], [1], [0], [0, 2, 2]], 3) == [0.75, 0.25, 0.25]
    assert choice_rates([], 2) == [0.0, 0.0]


def test_the_distribution_puts_a_full_mark_in_the_last_bin() -> None:
    of_100 = [(Decimal(v), Decimal(100)) for v in ("0", "9.99", "10", "55", "100")]
    assert distribution(of_100) == [2, 1, 0, 0, 0, 1, 0, 0, 0, 1]


def test_the_distribution_bins_on_exact_decimals() -> None:
    # 2.300 / 5.750 is exactly 0.4; in floating point 100 * 2.3 / 5.75 is 39.999…
    assert distribution([(Decimal("2.300"), Decimal("5.750"))]) == [0, 0, 0, 0, 1, 0, 0, 0, 0, 0]
    assert distribution([(Decimal("1"), Decimal("0"))]) == [0] * 10


def test_median_of_an_even_count_is_the_middle_mean() -> None:
    assert median([3, 1, 2, 10]) == 2.5


def test_quadratic_weighted_kappa_matches_the_hand_computation() -> None:
    # Observed weighted disagreement 2 (two pairs one level apart); expected 5.5 -> 1 - 2/5.5.
    assert quadratic_weighted_kappa([0, 1, 2, 2], [0, 2, 2, 1], 3) == pytest.approx(7 / 11)
    assert quadratic_weighted_kappa([0, 1, 2], [0, 1, 2], 3) == 1.0
    assert quadratic_weighted_kappa([0, 2], [2, 0], 3) == pytest.approx(-1.0)
    assert quadratic_weighted_kappa([1, 1], [1, 1], 3) is None


def test_kappa_of_a_single_pair_is_not_enough_data() -> None:
    # One disagreeing pair used to give 0.0 (observed = expected = 1).
    assert quadratic_weighted_kappa([2], [1], 3) is None
    row = criterion_agreement("Mechanism", [2], [1], 3)
    assert (row.pairs, row.kappa, row.kappa_note) == (1, None, "not_enough_data")


def test_criteria_are_ranked_by_how_far_markers_are_apart() -> None:
    close = criterion_agreement("Mechanism", [0, 1, 2], [0, 1, 1], 3)
    far = criterion_agreement("Practice", [0, 2, 2], [2, 0, 2], 3)
    assert far.mean_abs_difference == pytest.approx(4 / 3)
    assert far.disagreement_rate == pytest.approx(2 / 3)
    assert [row.criterion for row in most_disputed([close, far])] == ["Practice", "Mechanism"]


def test_first_per_student_keeps_each_students_earliest_attempt_whatever_its_state() -> None:
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def row(user: int, number: int, graded: bool = True) -> AttemptRow:
        return AttemptRow(
            total=float(number),
            maximum=6,
            seconds=None,
            user_id=user,
            number=number,
            started_at=start + timedelta(hours=number),
            graded=graded,
        )

    # Student 1's first attempt is not graded (flagged, say); it is still their first.
    attempts = {
        12: row(1, 3),
        11: row(1, 2),
        10: row(1, 1, graded=False),
        20: row(2, 1),
        21: row(2, 2),
    }
    assert set(first_per_student(attempts)) == {10, 20}
    assert in_scope(attempts, AttemptScope.FIRST) == {10: attempts[10], 20: attempts[20]}
    assert in_scope(attempts, AttemptScope.ALL) is attempts

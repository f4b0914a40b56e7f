"""Every statistics figure against numbers worked out by hand (definitions: docs/statistics.md).

Three small quizzes, built through the services and read through the API:

- ITEMS: seven students, three questions worth 1.00 + 1.30 + 3.45 = 5.75 points; the
  choice question gets a new version with its choices reordered half-way through.
- AGREEMENT: one double-marked viva with a 3-level and a 4-level criterion; one student's
  first attempt is flagged (awaiting moderation) and they retake the quiz.
- ONE PAIR: a single double-marked answer.

The expected values are written out below; none is computed by the code under test.
"""

import csv
import io
import math
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User

from grading.models import Attempt, AttemptStatus
from grading.models.marking import QuizMarkingPolicy
from grading.services.marking.marks import MarkInput, mark_create
from quizbank.models import Question, Quiz, Role
from tests.grading.content import NUMERIC, SINGLE, TRUE_FALSE, VIVA
from tests.grading.factories import (
    add_slots,
    api_as,
    member,
    new_course,
    new_quiz,
    new_topic,
    new_version,
    question,
    submitted_attempt,
)

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

# ---------------------------------------------------------------------------------------
# ITEMS. Q1 single choice (1.00 pt), Q2 true/false (1.30), Q3 numeric (3.45); max 5.75.
# Q1 version 1 offers ["3" (correct), "2", "4"]; version 2 offers ["4", "3" (correct), "2"].
#
#   student  Q1 version  Q1 pick   x1  x2  x3   total  percentage
#   S1       1           "2"       0   0   0    0.00     0
#   S2       1           "3"       1   1   0    2.30    40 exactly (2.300 / 5.750)
#   S3       1           "4"       0   1   1    4.75    82.6…
#   -- Q1 gets version 2 --
#   S4       2           "3"       1   0   0    1.00    17.39…
#   S5       2           (none)    0   1   0    1.30    22.60…
#   S6       2           "4"       0   0   1    3.45    60 exactly
#   S7       2           "3"       1   1   1    5.75   100
# ---------------------------------------------------------------------------------------
PLAN = [
    # (Q1 pick by text or None, Q2 right?, Q3 right?)
    ("2", False, False),
    ("3", True, False),
    ("4", True, True),
    ("3", False, False),
    (None, True, False),
    ("4", False, True),
    ("3", True, True),
]
V1: list[dict[str, Any]] = [{"text": "3", "correct": True}, {"text": "2"}, {"text": "4"}]
V2: list[dict[str, Any]] = [{"text": "4"}, {"text": "3", "correct": True}, {"text": "2"}]
FORMULA_TITLE = "=1+1 is read as a formula by a spreadsheet"

# Facility = mean share of marks: Q1 3/7, Q2 4/7, Q3 3/7.
FACILITY = [3 / 7, 4 / 7, 3 / 7]
# n = 7, g = round(27 × 7 / 100) = round(1.89) = 2. By total: bottom S1 (0), S4 (1.00);
# top S7 (5.75), S3 (4.75).
#   Q1: top x1 = (0 + 1)/2, bottom (0 + 1)/2        -> D = 0
#   Q2: top (1 + 1)/2, bottom (0 + 0)/2             -> D = 1
#   Q3: top (1 + 1)/2, bottom (0 + 0)/2             -> D = 1
DISCRIMINATION = [0.0, 1.0, 1.0]
# Corrected item-total r = r(x, rest) with rest = total - the item's points (r ignores the
# item's scale, so x stands in for its points). For each, Σx = 3 or 4 of n = 7.
#   Q1: rest = [0, 1.30, 4.75, 0, 1.30, 3.45, 4.75]; Σrest = 15.55, Σrest² = 60.4075,
#       Σx·rest = 1.30 + 0 + 4.75 = 6.05.
#       Sxy = 6.05 - 3 × 15.55 / 7 = -43/70;  Sxx = 3 - 9/7 = 12/7;
#       Syy = 60.4075 - 15.55² / 7 = 3621/140.
#   Q2: rest = [0, 1.00, 3.45, 1.00, 0, 3.45, 4.45]; Σrest = 13.35, Σrest² = 45.6075,
#       Σx·rest = 1.00 + 3.45 + 0 + 4.45 = 8.90.
#       Sxy = 8.90 - 4 × 13.35 / 7 = 89/70;  Sxx = 4 - 16/7 = 12/7;
#       Syy = 45.6075 - 13.35² / 7 = 14103/700.
#   Q3: rest = [0, 2.30, 1.30, 1.00, 1.30, 0, 2.30]; Σrest = 8.20, Σrest² = 14.96,
#       Σx·rest = 1.30 + 0 + 2.30 = 3.60.
#       Sxy = 3.60 - 3 × 8.20 / 7 = 3/35;  Sxx = 12/7;  Syy = 14.96 - 8.20² / 7 = 937/175.
R = [
    (-43 / 70) / math.sqrt(12 / 7 * 3621 / 140),  # -0.0923
    (89 / 70) / math.sqrt(12 / 7 * 14103 / 700),  # 0.2163
    (3 / 35) / math.sqrt(12 / 7 * 937 / 175),  # 0.0283
]
# Option rates of Q1, each pick read on its own version, denominator n = 7 (S5's blank
# included): "4" S3 (v1 #2) + S6 (v2 #0) = 2; "3" S2 (v1 #0) + S4, S7 (v2 #1) = 3;
# "2" S1 (v1 #1) = 1. Rows in version 2's order.
OPTIONS = [
    {"choice": 0, "text": "4", "correct": False, "count": 2, "rate": 2 / 7},
    {"choice": 1, "text": "3", "correct": True, "count": 3, "rate": 3 / 7},
    {"choice": 2, "text": "2", "correct": False, "count": 1, "rate": 1 / 7},
]
# Percentages 0, 40, 82.6, 17.4, 22.6, 60, 100 -> bins 0, 4, 8, 1, 2, 6, 9 (40 and 60 on
# their lower bound, 100 in the last bin).
BINS = [1, 1, 1, 0, 1, 0, 1, 0, 1, 1]
# Mean: (0 + 2.30 + 4.75 + 1.00 + 1.30 + 3.45 + 5.75) / 5.75 / 7 × 100 = 18.55 / 40.25 × 100
# = 1060/23; median: the fourth of seven sorted percentages, 40.
MEAN_PERCENTAGE = 1060 / 23


def _items_quiz() -> tuple[Quiz, User, list[Question]]:
    course = new_course()
    quiz = new_quiz(course=course, shuffle_choices=False)
    topic = new_topic(course=course)
    q1 = question(course, {**SINGLE, "choices": V1}, topic=topic, points="1.00")
    q2 = question(course, {**TRUE_FALSE, "title": FORMULA_TITLE}, topic=topic, points="1.30")
    q3 = question(course, NUMERIC, topic=topic, points="3.45")
    add_slots(quiz, q1, q2, q3)
    for index, (pick, right2, right3) in enumerate(PLAN):
        if index == 3:
            new_version(q1, {**SINGLE, "choices": V2, "points": 1.0})
        choices = V1 if index < 3 else V2
        answers: dict[int, Any] = {1: {"value": right2}, 2: {"value": 11 if right3 else 6}}
        if pick is not None:
            answers[0] = {"choice": [c["text"] for c in choices].index(pick)}
        student = member(course, Role.STUDENT, User.objects.create(username=f"s{index + 1}"))
        submitted_attempt(quiz, student, answers, T0 + timedelta(minutes=index))
    return quiz, member(course, Role.EXAMINER), [q1, q2, q3]


@pytest.fixture
def items() -> tuple[Quiz, User, list[Question]]:
    return _items_quiz()


def _statistics(quiz: Quiz, examiner: User, **params: str) -> dict[str, Any]:
    reply = api_as(examiner).get(f"/api/quizzes/{quiz.pk}/statistics/", params)
    assert reply.status_code == 200, reply.content
    body: dict[str, Any] = reply.json()
    return body


def test_the_fixture_totals_are_the_planned_ones(items: tuple[Quiz, User, list[Question]]) -> None:
    quiz, _, _ = items
    totals = Attempt.objects.filter(quiz=quiz).order_by("started_at")
    assert [str(a.score) for a in totals] == [
        "0.000",
        "2.300",
        "4.750",
        "1.000",
        "1.300",
        "3.450",
        "5.750",
    ]
    assert {str(a.max_score) for a in totals} == {"5.750"}


def test_quiz_figures_match_the_hand_computation(items: tuple[Quiz, User, list[Question]]) -> None:
    quiz, examiner, _ = items
    body = _statistics(quiz, examiner)
    assert (body["attempts"], body["attempts_not_graded"]) == (7, 0)
    assert body["mean_percentage"] == pytest.approx(MEAN_PERCENTAGE)
    assert body["median_percentage"] == 40.0
    assert [(b["from"], b["to"]) for b in body["distribution"]][4] == (40, 50)
    assert [b["count"] for b in body["distribution"]] == BINS


def test_item_figures_match_the_hand_computation(items: tuple[Quiz, User, list[Question]]) -> None:
    quiz, examiner, made = items
    questions = _statistics(quiz, examiner)["questions"]
    assert [q["question"] for q in questions] == [q.pk for q in made]
    assert [q["responses"] for q in questions] == [7, 7, 7]
    assert [q["facility"] for q in questions] == pytest.approx(FACILITY)
    assert [q["discrimination_index"] for q in questions] == pytest.approx(DISCRIMINATION)
    assert [q["item_total_correlation"] for q in questions] == pytest.approx(R)


def test_option_rates_read_each_response_on_its_own_version(
    items: tuple[Quiz, User, list[Question]],
) -> None:
    quiz, examiner, _ = items
    single, true_false, numeric = _statistics(quiz, examiner)["questions"]
    assert single["omitted"] == 1
    assert single["choices"] == [{**row, "rate": pytest.approx(row["rate"])} for row in OPTIONS]
    assert (true_false["choices"], true_false["omitted"], numeric["omitted"]) == ([], None, None)


def test_the_csv_writes_negative_figures_as_numbers_and_guards_only_text(
    items: tuple[Quiz, User, list[Question]],
) -> None:
    quiz, examiner, _ = items
    reply = api_as(examiner).get(f"/api/quizzes/{quiz.pk}/statistics.csv")
    single, true_false, _ = csv.DictReader(io.StringIO(reply.content.decode()))
    assert single["item_total_correlation"] == "-0.0923"
    assert single["discrimination_index"] == "0.0000"
    assert (single["facility"], single["omitted"]) == ("0.4286", "1")
    assert single["choice_rates"] == "0:0.2857; 1:0.4286; 2:0.1429"
    assert true_false["title"] == "'" + FORMULA_TITLE


# ---------------------------------------------------------------------------------------
# AGREEMENT. Viva worth 5 points: Mechanism has 3 levels (0, 1, 2 points), Practice 4 levels
# (0, 1, 2, 3 points). Double marking, threshold 0.2 of the maximum (1 point).
#
#   answer        first [M, P]  second [M, P]  scores       outcome
#   S1 attempt 1  [2, 3]        [0, 1]         1.0 vs 0.2   flagged: awaits moderation
#   S1 attempt 2  [2, 2]        [2, 3]         0.8 vs 1.0   final 0.9 (a retake)
#   S2            [1, 1]        [1, 1]         0.4 vs 0.4   final 0.4
#   S3            [0, 0]        [0, 0]         0   vs 0     final 0
#   S4            [2, 1]        [1, 1]         0.6 vs 0.4   final 0.5
#
# attempts=first: S1's first attempt is in scope (not the retake) though it is not graded.
#   Item analysis on the graded S2, S3, S4: facility (0.4 + 0 + 0.5) / 3 = 0.3.
#   Mechanism, pairs (2,0) (1,1) (0,0) (2,1), k = 3: observed Σ(a-b)² = 4 + 0 + 0 + 1 = 5;
#     first levels 0:1 1:1 2:2, second 0:2 1:2;
#     expected = [0·(0·2 + 1·2) + 1·(1·2 + 0·2) + 2·(4·2 + 1·2)] / 4 = (2 + 2 + 20) / 4 = 6;
#     kappa = 1 - 5/6 = 1/6. Gaps 2, 0, 0, 1: mean 3/4, rate 2/4.
#   Practice, pairs (3,1) (1,1) (0,0) (1,1), k = 4: observed 4;
#     first 0:1 1:2 3:1, second 0:1 1:3;
#     expected = [1·(0·1 + 1·3) + 2·(1·1 + 0·3) + 1·(9·1 + 4·3)] / 4 = (3 + 2 + 21) / 4 = 6.5;
#     kappa = 1 - 4/6.5 = 5/13. Gaps 2, 0, 0, 0: mean 1/2, rate 1/4.
# attempts=all: the retake is a fifth pair; item analysis on S1's retake, S2, S3, S4:
#   facility (0.9 + 0.4 + 0 + 0.5) / 4 = 0.45.
#   Mechanism adds (2,2): observed 5; first 0:1 1:1 2:3, second 0:2 1:2 2:1;
#     expected = [(0 + 2 + 4) + (2 + 0 + 1) + 3·(4·2 + 1·2 + 0)] / 5 = 39/5;
#     kappa = 1 - 25/39 = 14/39. Gaps 2, 0, 0, 1, 0: mean 3/5, rate 2/5.
#   Practice adds (2,3): observed 5; first 0:1 1:2 2:1 3:1, second 0:1 1:3 3:1;
#     expected = [(0 + 3 + 9) + 2·(1 + 0 + 4) + (4 + 3 + 1) + (9 + 12 + 0)] / 5 = 51/5;
#     kappa = 1 - 25/51 = 26/51. Gaps 2, 0, 0, 0, 1: mean 3/5, rate 2/5.
# The criteria have 3 and 4 levels, so no pooled kappa: "mixed_scales".
# ---------------------------------------------------------------------------------------
RUBRIC = [
    {
        "criterion": "Mechanism",
        "levels": [{"label": f"M{p}", "points": p, "descriptor": "-"} for p in range(3)],
    },
    {
        "criterion": "Practice",
        "levels": [{"label": f"P{p}", "points": p, "descriptor": "-"} for p in range(4)],
    },
]
MARKS = [  # (student, first levels, second levels), in the order the attempts are taken
    ("S1", [2, 3], [0, 1]),
    ("S1", [2, 2], [2, 3]),
    ("S2", [1, 1], [1, 1]),
    ("S3", [0, 0], [0, 0]),
    ("S4", [2, 1], [1, 1]),
]


def _criterion(name: str, levels: int, pairs: int, kappa: float, gap: float, rate: float) -> Any:
    return {
        "criterion": name,
        "levels": levels,
        "pairs": pairs,
        "kappa": pytest.approx(kappa),
        "kappa_note": None,
        "mean_abs_difference": pytest.approx(gap),
        "disagreement_rate": pytest.approx(rate),
    }


@pytest.fixture
def marked() -> tuple[Quiz, User]:
    course = new_course()
    quiz = new_quiz(course=course)
    viva = {**VIVA, "rubric": RUBRIC}
    add_slots(quiz, question(course, viva, points="5"))
    QuizMarkingPolicy.objects.create(quiz=quiz, double_marking=True, disagreement_threshold=0.2)
    first, second = member(course, Role.EXAMINER), member(course, Role.EXAMINER)
    students: dict[str, User] = {}
    for index, (name, levels_1, levels_2) in enumerate(MARKS):
        student = students.get(name) or member(course, Role.STUDENT)
        students[name] = student
        when = T0 + timedelta(minutes=index)
        attempt = submitted_attempt(quiz, student, {0: {"text": "because"}}, when)
        answer = attempt.responses.get()
        for marker, levels in ((first, levels_1), (second, levels_2)):
            mark_create(
                response_id=answer.pk, marker=marker, data=MarkInput(levels=levels), now=when
            )
    return quiz, first


def test_the_agreement_fixture_has_one_flagged_first_attempt(marked: tuple[Quiz, User]) -> None:
    quiz, _ = marked
    states = list(Attempt.objects.filter(quiz=quiz).order_by("started_at").values_list("status"))
    assert [s for (s,) in states] == [AttemptStatus.SUBMITTED] + [AttemptStatus.GRADED] * 4


def test_first_attempts_keep_a_flagged_first_attempt_in_place_of_the_retake(
    marked: tuple[Quiz, User],
) -> None:
    quiz, examiner = marked
    body = _statistics(quiz, examiner, attempts="first")
    assert (body["attempts"], body["attempts_not_graded"]) == (3, 1)
    (viva,) = body["questions"]
    assert (viva["responses"], viva["facility"]) == (3, pytest.approx(0.3))
    assert viva["agreement"] == {
        "pairs": 4,
        "kappa": None,
        "kappa_note": "mixed_scales",
        "criteria": [
            _criterion("Mechanism", 3, 4, 1 / 6, 3 / 4, 2 / 4),
            _criterion("Practice", 4, 4, 5 / 13, 1 / 2, 1 / 4),
        ],
    }


def test_every_attempt_counts_the_retake_as_its_own_pair(marked: tuple[Quiz, User]) -> None:
    quiz, examiner = marked
    body = _statistics(quiz, examiner, attempts="all")
    assert (body["attempts"], body["attempts_not_graded"]) == (4, 1)
    (viva,) = body["questions"]
    assert (viva["responses"], viva["facility"]) == (4, pytest.approx(0.45))
    assert viva["agreement"] == {
        "pairs": 5,
        "kappa": None,
        "kappa_note": "mixed_scales",
        "criteria": [
            _criterion("Mechanism", 3, 5, 14 / 39, 3 / 5, 2 / 5),
            _criterion("Practice", 4, 5, 26 / 51, 3 / 5, 2 / 5),
        ],
    }


# ---------------------------------------------------------------------------------------
# ONE PAIR. VIVA (one criterion, 3 levels, 0/1/2 points), marked 2 and 1 (scores 1.0 and
# 0.5, within a threshold of 0.5). One pair is not enough data: kappa is null (the formula
# would give 1 - 1/1 = 0.0). Gap 1: mean 1, rate 1.
# ---------------------------------------------------------------------------------------
def test_one_pair_is_not_enough_data_for_kappa() -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, question(course, VIVA, points="2"))
    QuizMarkingPolicy.objects.create(quiz=quiz, double_marking=True, disagreement_threshold=0.5)
    first, second = member(course, Role.EXAMINER), member(course, Role.EXAMINER)
    answer = submitted_attempt(quiz, member(course, Role.STUDENT), {0: {"text": "t"}}, T0)
    for marker, level in ((first, 2), (second, 1)):
        mark_create(
            response_id=answer.responses.get().pk,
            marker=marker,
            data=MarkInput(levels=[level]),
            now=T0,
        )
    (viva,) = _statistics(quiz, first)["questions"]
    assert viva["facility"] == 0.75
    assert viva["agreement"] == {
        "pairs": 1,
        "kappa": None,
        "kappa_note": "not_enough_data",
        "criteria": [
            {
                "criterion": "Mechanism",
                "levels": 3,
                "pairs": 1,
                "kappa": None,
                "kappa_note": "not_enough_data",
                "mean_abs_difference": 1.0,
                "disagreement_rate": 1.0,
            }
        ],
    }

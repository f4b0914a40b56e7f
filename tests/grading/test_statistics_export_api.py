"""Statistics (JSON, CSV) and the gradebook export through the API, on hand-made attempts."""

import csv
import io
import math
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from grading.models.marking import QuizMarkingPolicy
from grading.services.marking.marks import MarkInput, mark_create
from quizbank.models import GradingMethod
from tests.grading.content import SINGLE, VIVA_TWO_CRITERIA
from tests.grading.factories import Staff, api_as, member, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db

# Per student: choice picked, first marker's levels, second marker's levels.
PLAN = [(0, [2, 2], [2, 2]), (0, [1, 1], [1, 2]), (1, [2, 1], [2, 1]), (2, [0, 0], [0, 1])]


@pytest.fixture
def staff() -> Staff:
    made, _ = staffed_quiz(SINGLE, VIVA_TWO_CRITERIA, points="6")
    QuizMarkingPolicy.objects.create(quiz=made.quiz, double_marking=True, disagreement_threshold=1)
    for index, (pick, first, second) in enumerate(PLAN):
        student = member(made.course, "student", User.objects.create(username=f"st{index}"))
        attempt = submitted_attempt(made.quiz, student, {0: {"choice": pick}, 1: {"text": "x"}})
        viva = attempt.responses.get(position=1)
        for marker, levels in ((made.examiner, first), (made.second, second)):
            mark_create(
                response_id=viva.pk,
                marker=marker,
                data=MarkInput(levels=levels),
                now=timezone.now(),
            )
    return made


def test_statistics_match_the_hand_computed_values(staff: Staff) -> None:
    body = api_as(staff.examiner).get(f"/api/quizzes/{staff.quiz.pk}/statistics/").json()
    # Totals 12, 10, 4, 1 of 12 points.
    assert body["attempts"] == 4
    assert body["mean_percentage"] == pytest.approx(56.25)
    counts = [row["count"] for row in body["distribution"]]
    assert counts == [1, 0, 0, 1, 0, 0, 0, 0, 1, 1]
    single, viva = body["questions"]
    assert single["facility"] == 0.5
    assert single["discrimination_index"] == 1.0
    assert single["item_total_correlation"] == pytest.approx(2.5 / math.sqrt(12.75))
    assert [c["rate"] for c in single["choices"]] == [0.5, 0.25, 0.25]
    assert viva["facility"] == pytest.approx((1 + 4 / 6 + 4 / 6 + 1 / 6) / 4)
    agreement = viva["agreement"]
    assert agreement["pairs"] == 4
    practice, mechanism = agreement["criteria"]
    assert (practice["criterion"], practice["kappa"]) == ("Practice", 0.5)
    assert (mechanism["criterion"], mechanism["kappa"]) == ("Mechanism", 1.0)


def test_the_statistics_csv_has_one_row_per_question(staff: Staff) -> None:
    reply = api_as(staff.examiner).get(f"/api/quizzes/{staff.quiz.pk}/statistics.csv")
    assert reply["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(reply.content.decode())))
    assert [row["type"] for row in rows] == ["single_choice", "viva"]
    assert rows[0]["facility"] == "0.5000"
    assert rows[1]["most_disputed"] == "Practice"


def _grades(staff: Staff) -> list[dict[str, Any]]:
    reply = api_as(staff.examiner).get(f"/api/quizzes/{staff.quiz.pk}/grades.csv")
    assert reply.status_code == 200
    return list(csv.DictReader(io.StringIO(reply.content.decode())))


def test_the_gradebook_has_one_row_per_student_with_points_and_percentage(staff: Staff) -> None:
    rows = {row["username"]: row for row in _grades(staff)}
    assert set(rows) == {"st0", "st1", "st2", "st3", staff.student.username}
    first = rows["st1"]
    assert first["user_id"] == str(User.objects.get(username="st1").pk)
    single_col, viva_col = [key for key in first if key.startswith("slot ")]
    assert single_col.startswith("slot 1: exam-q-")
    assert single_col.endswith("[6.00]")
    assert viva_col.startswith("slot 2: exam-q-")
    assert (first[single_col], first[viva_col]) == ("6.000", "4.000")
    assert (first["total"], first["max"], first["percentage"]) == ("10.000", "12.000", "83.33")
    assert rows[staff.student.username]["total"] == ""  # enrolled, no graded attempt


@pytest.mark.parametrize(
    ("method", "total"),
    [
        (GradingMethod.HIGHEST, "6.000"),
        (GradingMethod.LAST, "0.000"),
        (GradingMethod.AVERAGE, "3.000"),
    ],
)
def test_the_gradebook_follows_the_grading_method(method: str, total: str) -> None:
    made, _ = staffed_quiz(SINGLE, points="6")
    made.quiz.grading_method = method
    made.quiz.save()
    for pick in (0, 1):
        submitted_attempt(made.quiz, made.student, {0: {"choice": pick}})
    row = next(r for r in _grades(made) if r["username"] == made.student.username)
    assert row["total"] == total
    question_col = next(key for key in row if key.startswith("slot 1: exam-q-"))
    assert row[question_col] == total


def test_only_examiners_of_the_course_get_statistics_and_exports(staff: Staff) -> None:
    for path in ("statistics/", "statistics.csv", "grades.csv"):
        url = f"/api/quizzes/{staff.quiz.pk}/{path}"
        assert api_as(staff.student).get(url).status_code == 403
        assert api_as(staff.outsider).get(url).status_code == 404
        assert APIClient().get(url).status_code in (401, 403)


@pytest.fixture
def retaken() -> Staff:
    """Student A misses the item (choice 1) then gets it right; student B gets it right once."""
    made, _ = staffed_quiz(SINGLE, points="6")
    retaker = member(made.course, "student", User.objects.create(username="retaker"))
    submitted_attempt(made.quiz, retaker, {0: {"choice": 1}})
    submitted_attempt(made.quiz, retaker, {0: {"choice": 0}})
    submitted_attempt(made.quiz, made.student, {0: {"choice": 0}})
    return made


def _statistics(staff: Staff, **params: str) -> dict[str, Any]:
    reply = api_as(staff.examiner).get(f"/api/quizzes/{staff.quiz.pk}/statistics/", params)
    assert reply.status_code == 200, reply.content
    body: dict[str, Any] = reply.json()
    return body


def test_first_attempts_only_leave_a_students_retake_out_of_the_item_analysis(
    retaken: Staff,
) -> None:
    every, first = _statistics(retaken), _statistics(retaken, attempts="first")
    # all: attempts scoring 0, 6, 6 of 6; first: the retaker's 0 and the other student's 6.
    assert (every["scope"], every["attempts"], first["scope"], first["attempts"]) == (
        "all",
        3,
        "first",
        2,
    )
    assert every["mean_percentage"] == pytest.approx(200 / 3)
    assert first["mean_percentage"] == pytest.approx(50.0)
    assert every["questions"][0]["facility"] == pytest.approx(2 / 3)
    assert first["questions"][0]["facility"] == 0.5
    assert [c["rate"] for c in every["questions"][0]["choices"]] == pytest.approx([2 / 3, 1 / 3, 0])
    assert [c["rate"] for c in first["questions"][0]["choices"]] == [0.5, 0.5, 0.0]


def test_the_statistics_csv_takes_the_attempts_parameter_too(retaken: Staff) -> None:
    url = f"/api/quizzes/{retaken.quiz.pk}/statistics.csv"
    facilities = []
    for scope in ("all", "first"):
        reply = api_as(retaken.examiner).get(url, {"attempts": scope})
        rows = list(csv.DictReader(io.StringIO(reply.content.decode())))
        facilities.append((rows[0]["responses"], rows[0]["facility"]))
    assert facilities == [("3", "0.6667"), ("2", "0.5000")]


def test_an_unknown_attempts_scope_is_a_400_naming_the_parameter(retaken: Staff) -> None:
    for path in ("statistics/", "statistics.csv"):
        url = f"/api/quizzes/{retaken.quiz.pk}/{path}"
        reply = api_as(retaken.examiner).get(url, {"attempts": "last"})
        assert reply.status_code == 400
        assert "attempts" in reply.json()["error"]["fields"]

"""A slot's own points: what each question it draws is worth in the quiz (the bank's points
otherwise), pinned when an attempt starts, in every total, gradebook and grade row."""

import csv
import io
from decimal import Decimal

import pytest
from django.contrib.auth.models import User

from grading.models import Attempt
from lms.services.lti_deep_link import quiz_score_maximum
from quizbank.errors import QuizInvalid, QuizLocked
from quizbank.models import Quiz, Role
from quizbank.services.quiz_write import SlotSpec, quiz_update
from tests.grading.content import MULTIPLE, SINGLE, TRUE_FALSE
from tests.grading.factories import (
    api_as,
    member,
    new_quiz,
    new_topic,
    question,
    submitted_attempt,
)

pytestmark = pytest.mark.django_db

RIGHT = {"choice": 0}
HALF_RIGHT = {"choices": [0]}  # one of MULTIPLE's two right choices: half, under partial scoring


def _quiz_worth_five_and_four() -> Quiz:
    """A 1-point choice question counted 5, a 1-point partial multiple choice counted 4."""
    quiz = new_quiz(shuffle_choices=False)
    single, multiple = question(quiz.course, SINGLE), question(quiz.course, MULTIPLE)
    slots = [
        SlotSpec(question=single.pk, points=Decimal(5)),
        SlotSpec(question=multiple.pk, points=Decimal(4)),
    ]
    return quiz_update(quiz=quiz, data={}, slots=slots)


def _take(quiz: Quiz, answers: dict[int, object]) -> tuple[User, Attempt]:
    student = member(quiz.course, Role.STUDENT)
    return student, submitted_attempt(quiz, student, answers)


def test_a_five_point_slot_over_a_one_point_question_scores_out_of_five() -> None:
    quiz = _quiz_worth_five_and_four()
    student, attempt = _take(quiz, {0: RIGHT, 1: HALF_RIGHT})
    view = api_as(student).get(f"/api/attempts/{attempt.pk}/").json()
    right, half = view["responses"]
    assert Decimal(right["question"]["points"]) == 5
    assert Decimal(right["points_awarded"]) == 5
    assert half["score"] == 0.5
    assert Decimal(half["points_awarded"]) == 2, "partial credit scales with the slot's points"
    assert Decimal(view["max_score"]) == 9
    assert Decimal(view["score"]) == 7


def test_a_slot_without_points_keeps_the_questions_own() -> None:
    quiz = new_quiz(shuffle_choices=False)
    worth_three = question(quiz.course, SINGLE, points="3")
    quiz_update(quiz=quiz, data={}, slots=[SlotSpec(question=worth_three.pk)])
    _, attempt = _take(quiz, {0: RIGHT})
    assert (attempt.score, attempt.max_score) == (Decimal(3), Decimal(3))


def test_a_pool_slots_points_apply_to_each_question_it_draws() -> None:
    quiz = new_quiz(shuffle_choices=False)
    topic = new_topic(course=quiz.course)
    for title in ("Leaves", "Graphs", "Hooks"):
        question(quiz.course, {**TRUE_FALSE, "title": title}, topic=topic, points="2")
    pool = SlotSpec(pool_topic=topic.slug, draw_count=2, points=Decimal("1.5"))
    quiz_update(quiz=quiz, data={}, slots=[pool])
    _, attempt = _take(quiz, {0: {"value": True}, 1: {"value": False}})
    assert [r.points for r in attempt.responses.order_by("position")] == [Decimal("1.5")] * 2
    assert (attempt.score, attempt.max_score) == (Decimal("1.5"), Decimal(3))
    assert quiz_score_maximum(quiz) == 3, "the LMS line item's scoreMaximum"


def test_the_gradebook_and_grade_rows_show_the_slots_maximum() -> None:
    quiz = _quiz_worth_five_and_four()
    student, _ = _take(quiz, {0: RIGHT, 1: HALF_RIGHT})
    examiner = member(quiz.course, Role.EXAMINER)
    book = api_as(examiner).get(f"/api/quizzes/{quiz.pk}/grades.csv").content.decode()
    reader = csv.DictReader(io.StringIO(book))
    [row] = [r for r in reader if r["username"] == student.username]
    labels = reader.fieldnames or []
    assert [label for label in labels if label.startswith("slot")][0].endswith("[5.00]")
    assert (Decimal(row["total"]), Decimal(row["max"])) == (Decimal(7), Decimal(9))
    grades = api_as(examiner).get(f"/api/quizzes/{quiz.pk}/grades/").json()
    [mine] = [g for g in grades if g["user_id"] == student.pk]
    assert (Decimal(mine["score"]), Decimal(mine["max_score"])) == (Decimal(7), Decimal(9))


def test_points_are_pinned_at_the_start_and_cannot_change_after_an_attempt() -> None:
    quiz = _quiz_worth_five_and_four()
    open_student = member(quiz.course, Role.STUDENT)
    started = api_as(open_student).post(f"/api/quizzes/{quiz.pk}/attempts/", {}, format="json")
    assert started.status_code == 201, started.content
    slots = list(quiz.slots.order_by("position"))
    changed = [
        SlotSpec(question=slots[0].question_id, points=Decimal(10)),
        SlotSpec(question=slots[1].question_id, points=Decimal(4)),
    ]
    with pytest.raises(QuizLocked):
        quiz_update(quiz=quiz, data={}, slots=changed)
    # Even written behind the service's back, a new slot value leaves the attempt as drawn.
    quiz.slots.filter(position=0).update(points=10)
    attempt = submitted_attempt(quiz, open_student, {0: RIGHT})
    assert (attempt.score, attempt.max_score) == (Decimal(5), Decimal(9))


def test_the_same_slots_with_the_same_points_are_no_change_after_an_attempt() -> None:
    quiz = _quiz_worth_five_and_four()
    _take(quiz, {0: RIGHT})
    same = [
        SlotSpec(question=s.question_id, points=s.points) for s in quiz.slots.order_by("position")
    ]
    quiz_update(quiz=quiz, data={"title": "Renamed"}, slots=same)
    assert [s.points for s in quiz.slots.order_by("position")] == [5, 4]


def test_an_author_sets_a_slots_points_over_the_api_and_bad_points_are_named() -> None:
    quiz = new_quiz()
    author = api_as(member(quiz.course, Role.AUTHOR))
    fixed = question(quiz.course, SINGLE)
    url = f"/api/quizzes/{quiz.pk}/"
    slots = [{"question": fixed.pk, "points": "5"}]
    assert author.patch(url, {"slots": slots}, format="json").status_code == 200
    assert [s.points for s in quiz.slots.all()] == [5]
    for bad in ("0", "-1", "1000.01", "0.001", "NaN", "five"):
        reply = author.patch(url, {"slots": [{"question": fixed.pk, "points": bad}]}, format="json")
        assert reply.status_code == 400, bad
        assert list(reply.json()["error"]["fields"]) == ["slots[0].points"], bad
    cleared = author.patch(url, {"slots": [{"question": fixed.pk, "points": None}]}, format="json")
    assert cleared.status_code == 200
    assert [s.points for s in quiz.slots.all()] == [None]


@pytest.mark.parametrize("bad", ["0", "-2", "1000.01", "0.005", "NaN", "Infinity"])
def test_the_service_refuses_points_out_of_range_naming_the_slot(bad: str) -> None:
    quiz = new_quiz()
    fixed, other = question(quiz.course, SINGLE), question(quiz.course, SINGLE)
    slots = [SlotSpec(question=fixed.pk), SlotSpec(question=other.pk, points=Decimal(bad))]
    with pytest.raises(QuizInvalid) as refused:
        quiz_update(quiz=quiz, data={}, slots=slots)
    assert list(refused.value.fields) == ["slots[1].points"]
    assert not quiz.slots.exists()


def test_authors_read_the_slots_back_and_students_never_get_them() -> None:
    quiz = new_quiz()
    author = api_as(member(quiz.course, Role.AUTHOR))
    fixed = question(quiz.course, SINGLE)
    topic = new_topic(course=quiz.course, slug="autograd")
    for _ in range(2):
        question(quiz.course, TRUE_FALSE, topic=topic)
    slots = [
        {"question": fixed.pk, "points": "5"},
        {"pool_topic": topic.slug, "pool_difficulty": "beginner", "draw_count": 2},
    ]
    url = f"/api/quizzes/{quiz.pk}/"
    written = author.patch(url, {"slots": slots, "shuffle_choices": False}, format="json").json()
    read = author.get(url).json()
    assert written == read
    assert read["shuffle_choices"] is False
    assert read["slots"] == [
        {
            "position": 0,
            "question": fixed.pk,
            "draw_count": 1,
            "pool_tag": "",
            "pool_topic": "",
            "pool_difficulty": "",
            "points": "5.00",
        },
        {
            "position": 1,
            "question": None,
            "draw_count": 2,
            "pool_tag": "",
            "pool_topic": "autograd",
            "pool_difficulty": "beginner",
            "points": None,
        },
    ]
    # What an author reads back is what the writes take: sending it again is no change.
    again = author.patch(url, {"slots": read["slots"]}, format="json")
    assert again.status_code == 200, again.json()
    assert again.json()["slots"] == read["slots"]
    for role in (Role.STUDENT, Role.EXAMINER):
        seen = api_as(member(quiz.course, role)).get(url).json()
        assert seen["slots"] is None, role
        assert seen["slot_count"] == 2

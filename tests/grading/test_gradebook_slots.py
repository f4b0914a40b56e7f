"""grades.csv: one column per quiz slot labelled by the slot (and its pool), a stable id."""

import csv
import io
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from grading.services.attempts import attempt_draw
from grading.services.marking.marks import MarkInput, mark_create
from grading.services.viva_sessions import (
    Pool,
    viva_session_draw,
    viva_session_end,
    viva_session_start,
)
from quizbank.models import Question, Quiz, QuizSlot, ReleasePolicy, Role, Topic
from tests.grading.content import SINGLE, TRUE_FALSE, VIVA
from tests.grading.factories import (
    add_slots,
    api_as,
    member,
    new_course,
    new_quiz,
    new_topic,
    question,
    submitted_attempt,
)

pytestmark = pytest.mark.django_db


def _grades(quiz: Quiz, examiner: User) -> tuple[list[str], list[dict[str, str]]]:
    reply = api_as(examiner).get(f"/api/quizzes/{quiz.pk}/grades.csv")
    assert reply.status_code == 200
    reader = csv.DictReader(io.StringIO(reply.content.decode()))
    rows = list(reader)
    return list(reader.fieldnames or []), rows


def _seed_drawing(quiz: Quiz, wanted: Question) -> int:
    """A seed whose draw puts `wanted` in the pool slot (slot position 1)."""
    for seed in range(200):
        drawn = [d for d in attempt_draw(quiz=quiz, seed=seed) if d.slot_position == 1]
        if drawn[0].version.question_id == wanted.pk:
            return seed
    raise AssertionError("no seed draws the question")


@pytest.fixture
def pooled(monkeypatch: pytest.MonkeyPatch) -> tuple[Quiz, User, Topic, list[User]]:
    """Slot 1 fixed (a choice question), slot 2 draws one of two true/false questions from
    the topic "pool-topic"; student a draws the first, b the second, both get slot 2 right."""
    course = new_course()
    quiz = new_quiz(course=course, shuffle_choices=False)
    add_slots(quiz, question(course, SINGLE))
    topic = new_topic(course=course, slug="pool-topic")
    first = question(course, {**TRUE_FALSE, "title": "Leaves"}, topic=topic, points="2")
    second = question(course, {**TRUE_FALSE, "title": "Graphs"}, topic=topic, points="2")
    QuizSlot.objects.create(quiz=quiz, position=1, pool_topic=topic)
    seeds: Iterator[int] = iter([_seed_drawing(quiz, first), _seed_drawing(quiz, second)])
    monkeypatch.setattr("grading.services.attempts.secrets.randbits", lambda _: next(seeds))
    students = []
    for name, choice in (("a-student", 0), ("=b-student", 1)):
        student = member(course, Role.STUDENT, User.objects.create(username=name))
        submitted_attempt(quiz, student, {0: {"choice": choice}, 1: {"value": True}})
        students.append(student)
    return quiz, member(course, Role.EXAMINER), topic, students


def test_a_pool_slot_has_one_column_whatever_each_student_drew(pooled: Any) -> None:
    quiz, examiner, _, (a, b) = pooled
    drawn = {
        r.attempt.user_id: r.question_version.question.title
        for r in quiz.attempts.get(user=a).responses.filter(position=1)
    }
    drawn |= {
        r.attempt.user_id: r.question_version.question.title
        for r in quiz.attempts.get(user=b).responses.filter(position=1)
    }
    assert drawn == {a.pk: "Leaves", b.pk: "Graphs"}

    header, rows = _grades(quiz, examiner)
    single_slug = quiz.slots.get(position=0).question.slug
    assert header == [
        "user_id",
        "username",
        "email",
        f"slot 1: {single_slug} [1.00]",
        "slot 2: pool topic pool-topic [2.00]",
        "total",
        "max",
        "percentage",
    ]
    by_id = {row["user_id"]: row for row in rows}
    pool = "slot 2: pool topic pool-topic [2.00]"
    assert by_id[str(a.pk)][pool] == by_id[str(b.pk)][pool] == "2.000"
    assert (by_id[str(a.pk)]["total"], by_id[str(b.pk)]["total"]) == ("3.000", "2.000")


def test_the_student_id_is_a_number_and_only_text_is_guarded(pooled: Any) -> None:
    quiz, examiner, _, (_, b) = pooled
    _, rows = _grades(quiz, examiner)
    row = next(r for r in rows if r["user_id"] == str(b.pk))
    assert row["username"] == "'=b-student"
    assert row["percentage"] == "66.67"


def test_questions_of_a_live_viva_have_columns_of_their_own() -> None:
    course = new_course()
    quiz = new_quiz(course=course, release_policy=ReleasePolicy.MANUAL)
    single = question(course, SINGLE)
    add_slots(quiz, single)
    question(course, VIVA, points="4")
    examiner, student = member(course, Role.EXAMINER), member(course, Role.STUDENT)
    now = timezone.now()
    session = viva_session_start(quiz=quiz, student=student, examiner=examiner, now=now)
    asked = viva_session_draw(session=session, pool=Pool(), now=now)
    mark_create(response_id=asked.pk, marker=examiner, data=MarkInput(levels=[2]), now=now)
    viva_session_end(session=session, now=now)

    header, rows = _grades(quiz, examiner)
    assert header[3:5] == [f"slot 1: {single.slug}", "live viva question 1 [4.00]"]
    assert (rows[0][f"slot 1: {single.slug}"], rows[0][header[4]]) == ("", "4.000")


def _gradebook_queries(quiz: Quiz, examiner: User) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert api_as(examiner).get(f"/api/quizzes/{quiz.pk}/grades.csv").status_code == 200
    return len(queries.captured_queries)


def test_the_gradebook_reads_the_same_few_queries_however_many_students() -> None:
    course = new_course()
    quiz = new_quiz(course=course, title="Week 1")
    add_slots(quiz, question(course, TRUE_FALSE))
    examiner = member(course, Role.EXAMINER)
    submitted_attempt(quiz, member(course, Role.STUDENT), {0: {"value": True}})
    few = _gradebook_queries(quiz, examiner)
    for _ in range(5):
        submitted_attempt(quiz, member(course, Role.STUDENT), {0: {"value": False}})
    assert _gradebook_queries(quiz, examiner) == few

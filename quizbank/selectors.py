"""Reads of the question bank and its quizzes (what a user may see is `quizbank.access`)."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet

from quizbank.models import Course, Question, QuestionVersion, Quiz, QuizSlot, Role


def course_questions(course: Course) -> QuerySet[Question]:
    """The course's questions in teaching order (topic position, then slug)."""
    return (
        Question.objects.filter(course=course)
        .select_related("topic", "current_version")
        .order_by("topic__position", "topic__slug", "slug")
    )


def question_versions(question: Question) -> QuerySet[QuestionVersion]:
    """Every version of the question, newest first."""
    return question.versions.select_related("created_by").order_by("-number")


def quiz_slots(quiz: Quiz) -> list[QuizSlot]:
    return list(quiz.slots.select_related("question__current_version").order_by("position"))


def slot_pool(slot: QuizSlot) -> list[Question]:
    """Questions a pool slot may draw from, in a stable order (tags filtered in Python
    because SQLite, the development database, has no JSON containment lookup)."""
    qs = Question.objects.filter(course_id=slot.quiz.course_id, current_version__isnull=False)
    if slot.pool_topic_id is not None:
        qs = qs.filter(topic_id=slot.pool_topic_id)
    if slot.pool_difficulty:
        qs = qs.filter(difficulty=slot.pool_difficulty)
    questions = list(qs.select_related("current_version").order_by("pk"))
    if slot.pool_tag:
        questions = [q for q in questions if slot.pool_tag in (q.tags or [])]
    return questions


def fixed_question_ids(question_ids: Iterable[int | None]) -> set[int]:
    """The quiz's fixed questions, from its slots' question ids (None for a pool): no pool
    draws one, even one whose slot comes later (a student would meet it twice)."""
    return {question_id for question_id in question_ids if question_id is not None}


def pool_drawable(slot: QuizSlot, fixed: set[int]) -> list[Question]:
    """`slot_pool` without the quiz's fixed questions (`fixed_question_ids`)."""
    return [question for question in slot_pool(slot) if question.pk not in fixed]


def slot_question_points(slot: QuizSlot, question: Question) -> Decimal:
    """What `question`, drawn by `slot`, is worth in the quiz: the slot's own points, else
    those of the question's current version."""
    if slot.points is not None:
        return slot.points
    content = question.current_version.content if question.current_version else {}
    return Decimal(str(content.get("points", question.points)))


def course_student(course_id: int, **lookup: Any) -> User | None:
    """The active student of the course matching `lookup` (pk=..., username=...), or None:
    an unknown account, an inactive one and one that is not a student all look the same."""
    return (
        User.objects.filter(
            is_active=True,
            course_memberships__course_id=course_id,
            course_memberships__role=Role.STUDENT,
            **lookup,
        )
        .distinct()
        .first()
    )


def course_student_named(course_id: int, name: str) -> User | None:
    """The course's active student of username `name`, or of that name ignoring case when
    exactly one student's matches (as enrolment matches them); None otherwise."""
    exact = course_student(course_id, username=name)
    if exact is not None:
        return exact
    matching = User.objects.filter(
        is_active=True,
        course_memberships__course_id=course_id,
        course_memberships__role=Role.STUDENT,
        username__iexact=name,
    ).distinct()[:2]
    found = list(matching)
    return found[0] if len(found) == 1 else None


def is_oral(content: dict[str, Any]) -> bool:
    """A viva question asked aloud: the student has nothing to type."""
    return bool(content.get("type") == "viva" and content.get("mode") == "oral")


def quiz_is_live_only(quiz: Quiz) -> bool:
    """Every slot is a fixed oral viva question: an examiner runs the quiz as a live viva
    (slots prefetched with their questions' current versions, or read here)."""
    slots = list(quiz.slots.all())
    return bool(slots) and all(
        slot.question is not None
        and slot.question.current_version is not None
        and is_oral(slot.question.current_version.content)
        for slot in slots
    )

"""Typed builders for grading tests: users, courses, questions with versions, quizzes, a staffed
quiz for examiner tests, submitted attempts and signed-in API clients."""

import hashlib
import itertools
import json
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from grading.models import Attempt
from grading.services.attempts import attempt_start
from grading.services.responses import attempt_submit, response_autosave
from quizbank.models import (
    Course,
    CourseMembership,
    Question,
    QuestionVersion,
    Quiz,
    QuizSlot,
    ReleasePolicy,
    Role,
    Topic,
)
from tests.grading.content import VIVA

_serial = itertools.count(1)


def new_user(**fields: Any) -> User:
    return User.objects.create(**{"username": f"user{next(_serial)}", **fields})


def new_author() -> User:
    """An author of a course of their own: course staff, who may run code outside attempts."""
    course = Course.objects.create(slug=f"course-{next(_serial)}", title="Authored")
    return member(course, Role.AUTHOR)


def new_course(**fields: Any) -> Course:
    n = next(_serial)
    return Course.objects.create(**{"slug": f"course-{n}", "title": f"Course {n}", **fields})


def new_topic(**fields: Any) -> Topic:
    if "course" not in fields:
        fields["course"] = new_course()
    return Topic.objects.create(**{"slug": f"topic-{next(_serial)}", "title": "Tensors", **fields})


def new_quiz(**fields: Any) -> Quiz:
    if "course" not in fields:
        fields["course"] = new_course()
    defaults = {"slug": f"quiz-{next(_serial)}", "title": "Weekly quiz", "attempts_allowed": 0}
    return Quiz.objects.create(**{**defaults, **fields})


def member(course: Course, role: str, user: User | None = None) -> User:
    user = user or new_user()
    CourseMembership.objects.create(course=course, user=user, role=role)
    return user


def _make_current(q: Question, content: dict[str, Any], prompt_html: str) -> QuestionVersion:
    """Store `content` (points added) as the question's next version and make it current."""
    full = {"points": float(q.points), **content}
    digest = hashlib.sha256(json.dumps(full, sort_keys=True).encode()).hexdigest()
    version = QuestionVersion.objects.create(
        question=q,
        number=q.versions.count() + 1,
        content_hash=digest,
        content=full,
        prompt_html=prompt_html,
    )
    q.current_version = version
    q.save(update_fields=["current_version"])
    return version


def question(
    course: Course,
    content: dict[str, Any],
    *,
    topic: Topic | None = None,
    points: str = "1",
    slug_prefix: str = "q",
) -> Question:
    """A question whose current version holds `content` (the bank format as a dict)."""
    topic = topic or new_topic(course=course)
    slug = f"{slug_prefix}-{next(_serial)}-{content['type'].replace('_', '-')}"
    q = Question.objects.create(
        course=course,
        topic=topic,
        slug=slug,
        type=content["type"],
        title=content["title"],
        prompt=content["prompt"],
        tags=content.get("tags", []),
        difficulty=content.get("difficulty", "beginner"),
        points=Decimal(points),
    )
    _make_current(q, content, f"<p>{content['prompt']}</p>")
    return q


def new_version(q: Question, content: dict[str, Any]) -> QuestionVersion:
    """An author's correction: version n+1 becomes current."""
    return _make_current(q, content, "<p>fixed</p>")


def add_slots(quiz: Quiz, *questions: Question) -> None:
    start = quiz.slots.count()
    for offset, q in enumerate(questions):
        QuizSlot.objects.create(quiz=quiz, position=start + offset, question=q)


@dataclass
class Staff:
    course: Course
    quiz: Quiz
    examiner: User
    second: User
    moderator: User
    student: User
    outsider: User


def staffed_quiz(*questions: dict[str, Any], points: str = "6") -> tuple[Staff, list[Question]]:
    """A quiz over `questions` (one topic, slugs "exam-q-…") with three examiners, one student
    and one outsider (an examiner of another course)."""
    course = new_course()
    quiz = new_quiz(course=course, title="Viva quiz", shuffle_choices=False)
    topic = new_topic(course=course, title="Autograd")
    made = [
        question(course, c, topic=topic, points=points, slug_prefix="exam-q") for c in questions
    ]
    add_slots(quiz, *made)
    staff = Staff(
        course=course,
        quiz=quiz,
        examiner=member(course, Role.EXAMINER),
        second=member(course, Role.EXAMINER),
        moderator=member(course, Role.EXAMINER),
        student=member(course, Role.STUDENT),
        outsider=member(new_course(), Role.EXAMINER),
    )
    return staff, made


def viva_staff() -> Staff:
    """`staffed_quiz` over one written viva question, released by hand (a live viva's quiz
    may not release immediately)."""
    made, _ = staffed_quiz(VIVA)
    made.quiz.release_policy = ReleasePolicy.MANUAL
    made.quiz.save()
    return made


def enrolled(quiz: Quiz, student: User) -> User:
    """`student`, a student of the quiz's course (only enrolled students take quizzes)."""
    CourseMembership.objects.get_or_create(course=quiz.course, user=student, role=Role.STUDENT)
    return student


def submitted_attempt(
    quiz: Quiz, student: User, answers: dict[int, Any], now: datetime | None = None
) -> Attempt:
    """Start, save `answers` by position, and submit an attempt of `student` (enrolled in the
    quiz's course first, if they are not)."""
    now = now or timezone.now()
    enrolled(quiz, student)
    attempt = attempt_start(quiz=quiz, user=student, now=now)
    for position, answer in answers.items():
        response_autosave(attempt=attempt, position=position, answer=answer, version=0, now=now)
    return attempt_submit(attempt=attempt, now=now)


def browser_as(user: User) -> Client:
    """A browser (Django's test client) signed in as `user`."""
    client = Client()
    client.force_login(user)
    return client


def api_as(user: User) -> APIClient:
    """An API client signed in as `user`."""
    client = APIClient()
    client.force_authenticate(user)
    return client

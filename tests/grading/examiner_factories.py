"""Builders for examiner tests: a course with staff, and submitted attempts."""

import hashlib
import itertools
import json
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

from grading.models import Attempt
from grading.services.attempt_start import attempt_start
from grading.services.attempt_submit import attempt_submit
from grading.services.response_autosave import response_autosave
from quizbank.models import (
    Course,
    CourseMembership,
    Question,
    QuestionVersion,
    Quiz,
    QuizSlot,
    Role,
    Topic,
)
from tests.grading.examiner_content import VIVA

# Three levels per criterion as the bank format asks; maximum 2 + 4 = 6 points.
VIVA_TWO_CRITERIA: dict[str, Any] = {
    **VIVA,
    "rubric": [
        {
            "criterion": "Mechanism",
            "levels": [
                {"label": "Missing", "points": 0, "descriptor": "No mention."},
                {"label": "Partial", "points": 1, "descriptor": "Adds up, no why."},
                {"label": "Full", "points": 2, "descriptor": "Sums over uses."},
            ],
        },
        {
            "criterion": "Practice",
            "levels": [
                {"label": "Missing", "points": 0, "descriptor": "No zeroing."},
                {"label": "Partial", "points": 2, "descriptor": "Zeroes sometimes."},
                {"label": "Full", "points": 4, "descriptor": "zero_grad each step."},
            ],
        },
    ],
}


_counter = itertools.count(1)


def _n() -> int:
    return next(_counter)


def new_course() -> Course:
    n = _n()
    return Course.objects.create(slug=f"exam-course-{n}", title=f"Course {n}")


def member(course: Course, role: str, user: User | None = None) -> User:
    user = user or User.objects.create(username=f"exam-user-{_n()}", email=f"u{_n()}@example.org")
    CourseMembership.objects.create(course=course, user=user, role=role)
    return user


def question(course: Course, content: dict[str, Any], *, points: str = "1") -> Question:
    """A question whose current version holds `content` (the bank format as a dict)."""
    topic, _ = Topic.objects.get_or_create(course=course, slug="exam-topic",
                                           defaults={"title": "Autograd"})  # fmt: skip
    full = {"points": float(points), **content}
    q = Question.objects.create(
        course=course, topic=topic, slug=f"exam-q-{_n()}", type=content["type"],
        title=content["title"], prompt=content["prompt"], tags=content.get("tags", []),
        difficulty=content.get("difficulty", "beginner"), points=Decimal(points),
    )  # fmt: skip
    digest = hashlib.sha256(json.dumps(full, sort_keys=True).encode()).hexdigest()
    version = QuestionVersion.objects.create(
        question=q, number=1, content_hash=digest, content=full,
        prompt_html=f"<p>{content['prompt']}</p>",
    )  # fmt: skip
    q.current_version = version
    q.save(update_fields=["current_version"])
    return q


def new_version(q: Question, content: dict[str, Any]) -> QuestionVersion:
    """An author's correction: version n+1 becomes current."""
    full = {"points": float(q.points), **content}
    digest = hashlib.sha256(json.dumps(full, sort_keys=True).encode()).hexdigest()
    version = QuestionVersion.objects.create(
        question=q, number=q.versions.count() + 1, content_hash=digest,
        content=full, prompt_html="<p>fixed</p>",
    )  # fmt: skip
    q.current_version = version
    q.save(update_fields=["current_version"])
    return version


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
    """A quiz over `questions` with three examiners, one student and one outsider."""
    course = new_course()
    quiz = Quiz.objects.create(course=course, slug=f"quiz-{_n()}", title="Viva quiz",
                               attempts_allowed=0, shuffle_choices=False)  # fmt: skip
    made = [question(course, content, points=points) for content in questions]
    for position, q in enumerate(made):
        QuizSlot.objects.create(quiz=quiz, position=position, question=q)
    staff = Staff(
        course=course, quiz=quiz, examiner=member(course, Role.EXAMINER),
        second=member(course, Role.EXAMINER), moderator=member(course, Role.EXAMINER),
        student=member(course, Role.STUDENT), outsider=member(new_course(), Role.EXAMINER),
    )  # fmt: skip
    return staff, made


def submitted_attempt(
    quiz: Quiz, student: User, answers: dict[int, Any], now: datetime | None = None
) -> Attempt:
    """Start, save `answers` by position, and submit an attempt of `student`."""
    now = now or timezone.now()
    attempt = attempt_start(quiz=quiz, user=student, now=now)
    for position, answer in answers.items():
        response_autosave(attempt=attempt, position=position, answer=answer, version=0, now=now)
    return attempt_submit(attempt=attempt, now=now)

"""Builders for examiner tests: a course with staff, and submitted attempts."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

from grading.models import Attempt
from grading.services.attempt_start import attempt_start
from grading.services.attempt_submit import attempt_submit
from grading.services.response_autosave import response_autosave
from quizbank.models import Course, Question, Quiz, Role
from tests.grading.factories import VIVA, CourseFactory, QuizFactory, add_slots, member, question

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
    course = CourseFactory()
    quiz = QuizFactory(course=course)
    made = [question(course, content, points=points) for content in questions]
    add_slots(quiz, *made)
    staff = Staff(
        course=course, quiz=quiz, examiner=member(course, Role.EXAMINER),
        second=member(course, Role.EXAMINER), moderator=member(course, Role.EXAMINER),
        student=member(course, Role.STUDENT), outsider=member(CourseFactory(), Role.EXAMINER),
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

"""A course with a student and a quiz of every automatically scored type plus a viva."""

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from rest_framework.test import APIClient

from quizbank.models import Course, Quiz, Role
from tests.grading.content import MULTIPLE, NUMERIC, SHORT_TEXT, SINGLE, TRUE_FALSE, VIVA
from tests.grading.factories import add_slots, member, new_course, new_quiz, question


@dataclass
class World:
    course: Course
    quiz: Quiz
    student: User
    examiner: User
    author: User


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Throttle and sign-in counters live in the cache; no test inherits another's."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def world(db: None) -> World:
    course = new_course()
    quiz = new_quiz(course=course, shuffle_choices=False)
    add_slots(
        quiz,
        *[question(course, c) for c in (SINGLE, MULTIPLE, TRUE_FALSE, NUMERIC, SHORT_TEXT)],
        question(course, VIVA, points="4"),
    )
    return World(
        course,
        quiz,
        member(course, Role.STUDENT),
        member(course, Role.EXAMINER),
        member(course, Role.AUTHOR),
    )


@pytest.fixture
def student_api(world: World) -> APIClient:
    client = APIClient()
    client.force_authenticate(world.student)
    return client

"""Loading the demo users and quizzes that `make run` serves."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import yaml
from django.contrib.auth.models import User
from django.db import transaction

from quizbank.errors import BankInvalid
from quizbank.models import Course, CourseMembership, Question, Topic
from quizbank.models.quizzes import Quiz, QuizSlot
from quizbank.services.bank_import import ImportReport, bank_import


@dataclass(frozen=True)
class DemoLogin:
    username: str
    password: str
    role: str


@dataclass(frozen=True)
class DemoReport:
    bank: ImportReport
    logins: list[DemoLogin]
    quizzes: list[str]


def demo_load(*, path: Path, base_dir: Path) -> DemoReport:
    """Import the demo bank, then create or refresh the demo users and quizzes."""
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    report = bank_import(path=base_dir / spec["bank"], course_slug=spec["course"])
    with transaction.atomic():
        course = Course.objects.get(slug=spec["course"])
        logins = [_user(course, entry) for entry in spec["users"]]
        quizzes = [_quiz(course, entry).slug for entry in spec["quizzes"]]
    return DemoReport(bank=report, logins=logins, quizzes=quizzes)


def _user(course: Course, entry: dict[str, Any]) -> DemoLogin:
    superuser = bool(entry.get("superuser", False))
    user, _ = User.objects.get_or_create(username=entry["username"])
    user.first_name = entry.get("first_name", "")
    user.last_name = entry.get("last_name", "")
    user.email = f"{entry['username']}@vivabank.invalid"
    user.is_staff = user.is_superuser = superuser
    user.set_password(entry["password"])
    user.save()
    role = entry.get("role", "admin")
    if not superuser:
        CourseMembership.objects.get_or_create(course=course, user=user, role=role)
    return DemoLogin(username=user.username, password=entry["password"], role=role)


def _quiz(course: Course, entry: dict[str, Any]) -> Quiz:
    quiz, _ = Quiz.objects.update_or_create(
        course=course,
        slug=entry["slug"],
        defaults={
            "title": entry["title"],
            "description": entry.get("description", ""),
            "time_limit": (
                timedelta(minutes=entry["time_limit_minutes"])
                if "time_limit_minutes" in entry
                else None
            ),
            "attempts_allowed": entry.get("attempts_allowed", 1),
            "grading_method": entry.get("grading_method", "highest"),
            "penalty_per_attempt": entry.get("penalty_per_attempt", 0.0),
            "shuffle_questions": entry.get("shuffle_questions", False),
            "release_policy": entry.get("release_policy", "immediately"),
        },
    )
    quiz.slots.all().delete()
    for position, slot in enumerate(entry["slots"]):
        _slot(course, quiz, position, slot)
    return quiz


def _slot(course: Course, quiz: Quiz, position: int, slot: dict[str, Any]) -> QuizSlot:
    where = f"quiz {quiz.slug}, slot {position + 1}"
    if "question" in slot:
        question = Question.objects.filter(course=course, slug=slot["question"]).first()
        if question is None:
            raise BankInvalid([f"{where}: no question {slot['question']!r} in {course.slug}"])
        return QuizSlot.objects.create(quiz=quiz, position=position, question=question)
    topic = None
    if "topic" in slot:
        topic = Topic.objects.filter(course=course, slug=slot["topic"]).first()
        if topic is None:
            raise BankInvalid([f"{where}: no topic {slot['topic']!r} in {course.slug}"])
    return QuizSlot.objects.create(
        quiz=quiz,
        position=position,
        draw_count=slot.get("draw", 1),
        pool_tag=slot.get("tag", ""),
        pool_topic=topic,
        pool_difficulty=slot.get("difficulty", ""),
    )

"""Start (or resume) a student's attempt at a quiz."""

import secrets
from datetime import datetime

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from grading.errors import NoAttemptsLeft, QuizIsEmpty, QuizNotOpen
from grading.models import Attempt, AttemptStatus, Response
from grading.services.attempt_draw import attempt_draw
from grading.services.variants import variant_generate, variant_seed
from quizbank.models import Quiz


def _check_open(quiz: Quiz, now: datetime) -> None:
    if quiz.opens_at is not None and now < quiz.opens_at:
        raise QuizNotOpen(f"The quiz opens at {quiz.opens_at.isoformat()}.")
    if quiz.closes_at is not None and now >= quiz.closes_at:
        raise QuizNotOpen(f"The quiz closed at {quiz.closes_at.isoformat()}.")


def quiz_deadline(quiz: Quiz, started_at: datetime) -> datetime | None:
    """min(start + time limit, close time); None for an untimed quiz with no close."""
    candidates = [quiz.closes_at] if quiz.closes_at is not None else []
    if quiz.time_limit is not None:
        candidates.append(started_at + quiz.time_limit)
    return min(candidates) if candidates else None


def _create(quiz: Quiz, user: User, number: int, now: datetime) -> Attempt:
    seed = secrets.randbits(62)
    drawn = attempt_draw(quiz=quiz, seed=seed)
    if not drawn:
        raise QuizIsEmpty("The quiz has no questions to draw.")
    attempt = Attempt.objects.create(
        quiz=quiz, user=user, number=number, seed=seed, started_at=now, last_activity_at=now,
        deadline=quiz_deadline(quiz, now), max_score=sum(item.points for item in drawn),
    )  # fmt: skip
    rows = []
    for position, item in enumerate(drawn):
        params, answers = variant_generate(
            content=item.version.content, seed=variant_seed(seed, position)
        )
        rows.append(
            Response(
                attempt=attempt,
                position=position,
                slot_position=item.slot_position,
                question_version=item.version,
                points=item.points,
                params=params,
                generated_answers=answers,
                choice_order=item.choice_order,
            )  # fmt: skip
        )
    Response.objects.bulk_create(rows)
    return attempt


def attempt_start(*, quiz: Quiz, user: User, now: datetime) -> Attempt:
    """The student's open attempt if there is one, else a new attempt with its own seed."""
    existing = Attempt.objects.filter(quiz=quiz, user=user, status=AttemptStatus.OPEN).first()
    if existing is not None:
        return existing
    _check_open(quiz, now)
    count = Attempt.objects.filter(quiz=quiz, user=user).count()
    if quiz.attempts_allowed and count >= quiz.attempts_allowed:
        raise NoAttemptsLeft(f"All {quiz.attempts_allowed} attempts have been used.")
    try:
        with transaction.atomic():
            return _create(quiz, user, count + 1, now)
    except IntegrityError:
        # A parallel request started the attempt first; hand back that one.
        return Attempt.objects.get(quiz=quiz, user=user, status=AttemptStatus.OPEN)

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
from quizbank.services.quiz_access import QuizTerms, quiz_access_check, quiz_terms


def _check_open(terms: QuizTerms, now: datetime) -> None:
    if terms.opens_at is not None and now < terms.opens_at:
        raise QuizNotOpen(f"The quiz opens at {terms.opens_at.isoformat()}.")
    if terms.closes_at is not None and now >= terms.closes_at:
        raise QuizNotOpen(f"The quiz closed at {terms.closes_at.isoformat()}.")


def _create(quiz: Quiz, terms: QuizTerms, user: User, number: int, now: datetime) -> Attempt:
    seed = secrets.randbits(62)
    drawn = attempt_draw(quiz=quiz, seed=seed)
    if not drawn:
        raise QuizIsEmpty("The quiz has no questions to draw.")
    attempt = Attempt.objects.create(
        quiz=quiz, user=user, number=number, seed=seed, started_at=now, last_activity_at=now,
        deadline=terms.deadline(now), max_score=sum(item.points for item in drawn),
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


def attempt_start(
    *, quiz: Quiz, user: User, now: datetime, access_code: str = "", address: str = ""
) -> Attempt:
    """The student's open attempt if there is one, else a new attempt with its own seed,
    on the student's terms (their override applied); the quiz's access code and allowed
    networks are checked first, for a resume too (an empty address is outside any network)."""
    quiz_access_check(quiz=quiz, access_code=access_code, address=address)
    existing = Attempt.objects.filter(quiz=quiz, user=user, status=AttemptStatus.OPEN).first()
    if existing is not None:
        return existing
    terms = quiz_terms(quiz=quiz, user_id=user.pk)
    _check_open(terms, now)
    count = Attempt.objects.filter(quiz=quiz, user=user).count()
    if terms.attempts_allowed and count >= terms.attempts_allowed:
        raise NoAttemptsLeft(f"All {terms.attempts_allowed} attempts have been used.")
    try:
        with transaction.atomic():
            return _create(quiz, terms, user, count + 1, now)
    except IntegrityError:
        # A parallel request started the attempt first; hand back that one.
        return Attempt.objects.get(quiz=quiz, user=user, status=AttemptStatus.OPEN)

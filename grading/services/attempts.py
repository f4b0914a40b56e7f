"""An attempt's life: its clock, drawing and starting it, its total, and the lock order.

Lock order everywhere: the attempt row first, then its response (submit's order), so
totals never race; each lock takes only its own row (config.locking), so the shared quiz and
question-version rows that starting an attempt points at are never locked by an answer."""

import random
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from config.locking import for_update
from config.queries import unique_or_none
from grading.errors import (
    AttemptInProgress,
    NoAttemptsLeft,
    NotAStudent,
    QuizIsEmpty,
    QuizIsLiveOnly,
    QuizNotOpen,
)
from grading.models import Attempt, AttemptStatus, Response, ResponseStatus
from grading.services.variants import variant_generate, variant_seed
from quizbank.access import studies
from quizbank.models import Question, QuestionVersion, Quiz, QuizSlot
from quizbank.selectors import (
    fixed_question_ids,
    is_oral,
    quiz_slots,
    slot_pool,
    slot_question_points,
)
from quizbank.services.quiz_access import QuizTerms, quiz_access_check, quiz_terms

# The server's clock for an attempt: when answers stop being accepted.


def answers_close_at(attempt: Attempt) -> datetime | None:
    """The deadline plus the quiz's grace period; None for an untimed attempt."""
    if attempt.deadline is None:
        return None
    return attempt.deadline + attempt.quiz.grace_period


def attempt_is_overdue(attempt: Attempt, now: datetime) -> bool:
    """An open attempt whose deadline and grace period have both passed."""
    closes = answers_close_at(attempt)
    return attempt.status == AttemptStatus.OPEN and closes is not None and now > closes


# Recompute an attempt's total from its responses and mark it graded when complete.

# A code answer the runner has yet to grade (seconds); then one waiting for a person (days).
MACHINE_GRADING = frozenset({ResponseStatus.QUEUED, ResponseStatus.RUNNING})
PENDING = MACHINE_GRADING | {ResponseStatus.NEEDS_MARKING}
# An answer the grader failed on is not a zero: the attempt waits for its regrade too, so no
# total (or LMS grade) is final while one is left.
_NOT_FINAL = PENDING | {ResponseStatus.ERROR}
_QUANTUM = Decimal("0.001")
TOTAL_FIELDS = ["score", "max_score", "status", "graded_at"]


def attempt_total(attempt: Attempt, responses: Iterable[Response], now: datetime) -> None:
    """Set the attempt's total from all of its `responses` (not saved; TOTAL_FIELDS change)."""
    responses = list(responses)
    total = sum(
        (Decimal(str(r.score)) * r.points for r in responses if r.score is not None),
        Decimal(0),
    )
    attempt.score = total.quantize(_QUANTUM)
    attempt.max_score = sum((r.points for r in responses), Decimal(0))
    pending = any(r.status in _NOT_FINAL for r in responses)
    if attempt.status != AttemptStatus.OPEN:
        attempt.status = AttemptStatus.SUBMITTED if pending else AttemptStatus.GRADED
        attempt.graded_at = None if pending else (attempt.graded_at or now)


def attempt_refresh_total(*, attempt: Attempt, now: datetime) -> Attempt:
    """Sum of score × points; the attempt is graded once nothing is pending."""
    attempt_total(
        attempt, Response.objects.filter(attempt=attempt).only("status", "score", "points"), now
    )
    attempt.save(update_fields=TOTAL_FIELDS)
    return attempt


def attempts_refresh_totals(*, attempts: list[Attempt], now: datetime) -> None:
    """`attempt_refresh_total` for many (already locked) attempts in two queries."""
    if not attempts:
        return
    rows: dict[int, list[Response]] = {attempt.pk: [] for attempt in attempts}
    responses = Response.objects.filter(attempt_id__in=list(rows)).only(
        "attempt_id", "status", "score", "points"
    )
    for response in responses:
        rows[response.attempt_id].append(response)
    for attempt in attempts:
        attempt_total(attempt, rows[attempt.pk], now)
    Attempt.objects.bulk_update(attempts, TOTAL_FIELDS)


# Draw an attempt's questions from its seed: same seed, same questions and order.

CHOICE_TYPES = frozenset({"single_choice", "multiple_choice"})


@dataclass(frozen=True)
class Drawn:
    slot_position: int
    version: QuestionVersion
    points: Decimal
    choice_order: list[int]


def _rng(seed: int, *parts: object) -> random.Random:
    return random.Random(":".join([str(seed), *map(str, parts)]))  # noqa: S311 - reproducible draws, not secrets


def _pick(quiz: Quiz, seed: int) -> list[tuple[QuizSlot, Question]]:
    picked: list[tuple[QuizSlot, Question]] = []
    slots = quiz_slots(quiz)
    used = fixed_question_ids(slot.question_id for slot in slots)
    for slot in slots:
        if slot.question is not None:
            candidates, count = [slot.question], 1
        else:
            candidates = [q for q in slot_pool(slot) if q.pk not in used]
            count = min(slot.draw_count, len(candidates))
            candidates = _rng(seed, "slot", slot.position).sample(candidates, count)
        for question in candidates:
            if question.current_version is not None:
                used.add(question.pk)
                picked.append((slot, question))
    return picked


def _choice_order(quiz: Quiz, seed: int, position: int, version: QuestionVersion) -> list[int]:
    content = version.content
    if content.get("type") not in CHOICE_TYPES:
        return []
    order = list(range(len(content.get("choices", []))))
    if quiz.shuffle_choices and content.get("shuffle", True):
        _rng(seed, "choices", position, version.pk).shuffle(order)
    return order


def attempt_draw(*, quiz: Quiz, seed: int) -> list[Drawn]:
    """The questions of a new attempt, in the order the student will see them, each worth
    its slot's points (pinned in the attempt: a later change to the quiz changes no attempt)."""
    picked = _pick(quiz, seed)
    if quiz.shuffle_questions:
        _rng(seed, "order").shuffle(picked)
    drawn: list[Drawn] = []
    for slot, question in picked:
        version = question.current_version
        assert version is not None  # noqa: S101 (filtered in _pick)
        order = _choice_order(quiz, seed, slot.position, version)
        drawn.append(Drawn(slot.position, version, slot_question_points(slot, question), order))
    return drawn


# Start (or resume) a student's attempt at a quiz.


def _check_open(terms: QuizTerms, now: datetime) -> None:
    if terms.opens_at is not None and now < terms.opens_at:
        raise QuizNotOpen(f"The quiz opens at {terms.opens_at.isoformat()}.")
    if terms.closes_at is not None and now >= terms.closes_at:
        raise QuizNotOpen(f"The quiz closed at {terms.closes_at.isoformat()}.")


def drawn_responses(drawn: list[Drawn], seed: int) -> list[Response]:
    """The responses a draw gives, each with its variant's parameters, not yet saved or tied
    to an attempt (the authors' preview shows them without saving)."""
    rows = []
    for position, item in enumerate(drawn):
        params, answers = variant_generate(
            content=item.version.content, seed=variant_seed(seed, position)
        )
        rows.append(
            Response(
                position=position,
                slot_position=item.slot_position,
                question_version=item.version,
                points=item.points,
                params=params,
                generated_answers=answers,
                choice_order=item.choice_order,
            )
        )
    return rows


@dataclass(frozen=True)
class NewDraw:
    seed: int
    drawn: list[Drawn]
    rows: list[Response]


def _new_draw(quiz: Quiz) -> NewDraw:
    """A fresh seed's questions and their responses, variants generated. Done before the
    attempt's transaction: a parameterised question waits for a worker's generator, and a
    write lock held meanwhile (SQLite's, under `make run`) would keep that worker from
    recording its job."""
    seed = secrets.randbits(62)
    drawn = attempt_draw(quiz=quiz, seed=seed)
    if not drawn:
        raise QuizIsEmpty("The quiz has no questions to draw.")
    if all(is_oral(item.version.content) for item in drawn):
        # Started online, it would only use up the attempt the examiner's live viva needs.
        raise QuizIsLiveOnly(
            "This quiz is asked aloud in a live viva: an examiner starts it with you."
        )
    return NewDraw(seed, drawn, drawn_responses(drawn, seed))


def _create(
    quiz: Quiz, terms: QuizTerms, user: User, number: int, now: datetime, new: NewDraw
) -> Attempt:
    seed, drawn = new.seed, new.drawn
    attempt = Attempt.objects.create(
        quiz=quiz,
        user=user,
        number=number,
        seed=seed,
        started_at=now,
        last_activity_at=now,
        deadline=terms.deadline(now),
        max_score=sum(item.points for item in drawn),
    )
    for row in new.rows:
        row.attempt = attempt
    Response.objects.bulk_create(new.rows)
    return attempt


def attempt_start(
    *, quiz: Quiz, user: User, now: datetime, access_code: str = "", address: str = ""
) -> Attempt:
    """The student's open attempt if there is one, else a new attempt with its own seed,
    on the student's terms (their override applied); the quiz's access code and allowed
    networks are checked first, for a resume too (an empty address is outside any network)."""
    if not studies(user, quiz.course_id):
        raise NotAStudent(
            "Only the course's enrolled students take its quizzes; its examiners and authors "
            "preview a quiz from its report or its builder instead.",
            fields={"quiz": ["not enrolled as a student of its course"]},
        )
    quiz_access_check(quiz=quiz, user_id=user.pk, access_code=access_code, address=address)
    # Counted before looking for an open attempt: one that a parallel start opens after the
    # count is either seen below (and resumed) or met as a conflict on insert, never counted
    # against the limit while unseen as open.
    count = Attempt.objects.filter(quiz=quiz, user=user).count()
    existing = Attempt.objects.filter(quiz=quiz, user=user, status=AttemptStatus.OPEN).first()
    if existing is not None:
        return existing
    terms = quiz_terms(quiz=quiz, user_id=user.pk)
    _check_open(terms, now)
    if terms.attempts_allowed and count >= terms.attempts_allowed:
        allowed = terms.attempts_allowed
        raise NoAttemptsLeft(
            "The one attempt allowed has been used."
            if allowed == 1
            else f"All {allowed} attempts have been used."
        )
    new = _new_draw(quiz)
    try:
        with transaction.atomic():
            return _create(quiz, terms, user, count + 1, now, new)
    except IntegrityError as error:
        # A parallel request started the attempt first; hand back that one. A live viva
        # that took the same number is no attempt to resume: the student tries again.
        started = Attempt.objects.filter(quiz=quiz, user=user, status=AttemptStatus.OPEN).first()
        if started is None:
            raise AttemptInProgress(
                "Another attempt at this quiz began at the same moment; try again."
            ) from error
        return started


def attempt_lock(attempt_id: int) -> Attempt:
    """The attempt, locked (its quiz read alongside, not locked): the first lock of every
    write to an attempt or its responses."""
    return for_update(Attempt).select_related("quiz").get(pk=attempt_id)


def response_lock(**lookup: Any) -> Response | None:
    """The response matching `lookup`, locked, or None: its attempt row is locked first, then
    the response. Every write to a response (submit, results, marks, regrades) takes this one
    order, so two writers never deadlock and an attempt's total never races its answers."""
    attempt = attempt_lock_through(**lookup)
    if attempt is None:
        return None
    response = unique_or_none(
        for_update(Response).select_related("question_version").filter(**lookup)
    )
    if response is not None:
        response.attempt = attempt  # the locked row, not a second copy
    return response


def attempt_lock_through(**lookup: Any) -> Attempt | None:
    """The attempt (with its quiz) of the response matching `lookup`, locked in one query, or
    None: the first step of `response_lock`, for a writer that then updates the response
    without reading it."""
    through = {f"responses__{key}": value for key, value in lookup.items()}
    return unique_or_none(for_update(Attempt).select_related("quiz").filter(**through))


def response_lock_by_id(response_id: int) -> Response:
    """response_lock by primary key; Response.DoesNotExist when there is none."""
    response = response_lock(pk=response_id)
    if response is None:
        raise Response.DoesNotExist(f"No response {response_id}.")
    return response

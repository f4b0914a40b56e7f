"""Live vivas: start a session, draw questions without repeats, record marks, end it.

The session's attempt is created already submitted, so the student can neither
autosave over the examiner's notes nor submit it; ending the session stamps the
submit time and totals it like any other attempt.
"""

import random
import secrets
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from config.locking import for_update
from grading.errors import (
    AnswerTooLarge,
    AttemptInProgress,
    NoAttemptsLeft,
    NoSuchPosition,
    NoSuchTopic,
    NotAStudent,
    PoolExhausted,
    QuestionKept,
    SessionClosed,
    UnmarkedQuestions,
    VivaQuestionChanged,
    VivaQuizReleasesImmediately,
)
from grading.models import Attempt, AttemptStatus, Response, ResponseStatus
from grading.models.viva_sessions import VivaSession, VivaSessionStatus
from grading.services.attempts import attempt_lock, attempt_refresh_total, response_lock
from grading.services.marking.marks import refuse_own_answer
from quizbank.access import studies
from quizbank.models import (
    Difficulty,
    Question,
    QuestionType,
    Quiz,
    QuizSlot,
    ReleasePolicy,
    Topic,
)
from quizbank.selectors import quiz_slots, slot_pool, slot_question_points
from quizbank.services.quiz_access import quiz_terms


@dataclass(frozen=True)
class Pool:
    tag: str = ""
    topic_id: int | None = None
    difficulty: str = ""


def _check_student(quiz: Quiz, student: User) -> None:
    if not studies(student, quiz.course_id):
        raise NotAStudent(
            f"User {student.pk} is not a student of this course.",
            fields={"student": ["not a student of the course"]},
        )
    if quiz.release_policy == ReleasePolicy.IMMEDIATELY:
        raise VivaQuizReleasesImmediately(
            "A live viva quiz must not release marks immediately, or the student would see "
            "them while the viva goes on; set its release policy to manual or after close.",
            fields={"quiz": ["release policy is 'immediately'"]},
        )


def _next_number(quiz: Quiz, student: User) -> int:
    """The session's attempt number; NoAttemptsLeft once the quiz's limit is used up."""
    # Lock the student's attempts so two sessions (or a session and a start) count once.
    taken = list(
        for_update(Attempt).filter(quiz=quiz, user=student).values_list("number", flat=True)
    )
    allowed = quiz_terms(quiz=quiz, user_id=student.pk).attempts_allowed
    if allowed and len(taken) >= allowed:
        raise NoAttemptsLeft(
            f"{student.username} has used all {allowed} attempt{'s' if allowed != 1 else ''} "
            "at this quiz; "
            "a live viva counts as one.",
            fields={"student": [f"{len(taken)} of {allowed} attempts used"]},
        )
    return max(taken, default=0) + 1


def viva_session_start(*, quiz: Quiz, student: User, examiner: User, now: datetime) -> VivaSession:
    """Open a live viva for a student of the quiz's course; it counts as one of the
    student's attempts, and its results wait for a release that covers it."""
    _check_student(quiz, student)
    refuse_own_answer(student_id=student.pk, examiner=examiner)
    try:
        with transaction.atomic():
            attempt = Attempt.objects.create(
                quiz=quiz,
                user=student,
                number=_next_number(quiz, student),
                seed=secrets.randbits(62),
                status=AttemptStatus.SUBMITTED,
                started_at=now,
                max_score=0,
                live_viva=True,
            )
            return VivaSession.objects.create(attempt=attempt, examiner=examiner, started_at=now)
    except IntegrityError as error:
        raise AttemptInProgress(
            "Another attempt of this student began at the same moment; try again."
        ) from error


def _locked_open(session: VivaSession) -> VivaSession:
    locked = for_update(VivaSession).select_related("attempt__quiz").get(pk=session.pk)
    if locked.status != VivaSessionStatus.OPEN:
        raise SessionClosed("This viva session has ended.")
    return locked


def viva_questions_of(quiz: Quiz) -> tuple[set[int] | None, dict[int, QuizSlot]]:
    """The viva questions a live viva of `quiz` draws from: those its slots name or draw
    from, with the slot that brings each (for its points). None when the quiz brings no
    viva question (no slots, or none of that type): the session then draws from every viva
    question of the course."""
    by_question: dict[int, QuizSlot] = {}
    for slot in quiz_slots(quiz):
        named = [slot.question] if slot.question is not None else slot_pool(slot)
        for question in named:
            if question.type == QuestionType.VIVA:
                by_question.setdefault(question.pk, slot)
    return (set(by_question) if by_question else None), by_question


def _candidates(
    quiz: Quiz, pool: Pool, drawn: set[int], allowed: set[int] | None
) -> list[Question]:
    """The viva questions the session may draw next: those `allowed` (the quiz's own, see
    viva_questions_of), narrowed by the examiner's pool, never one already drawn or put back."""
    qs = Question.objects.filter(
        course_id=quiz.course_id, type="viva", current_version__isnull=False
    ).exclude(pk__in=drawn)
    if allowed is not None:
        qs = qs.filter(pk__in=allowed)
    if pool.topic_id is not None:
        qs = qs.filter(topic_id=pool.topic_id)
    if pool.difficulty:
        qs = qs.filter(difficulty=pool.difficulty)
    questions = list(qs.select_related("current_version").order_by("pk"))
    return [q for q in questions if not pool.tag or pool.tag in (q.tags or [])]


@dataclass(frozen=True)
class PoolChoices:
    """What a live viva of a quiz can be narrowed by: the topics, tags and difficulties of
    the viva questions it draws from."""

    topics: list[Topic]
    tags: list[str]
    difficulties: list[tuple[str, str]]


def viva_pool_choices(quiz: Quiz) -> PoolChoices:
    allowed, _ = viva_questions_of(quiz)
    questions = Question.objects.filter(course_id=quiz.course_id, type="viva")
    if allowed is not None:
        questions = questions.filter(pk__in=allowed)
    rows = list(questions.values_list("topic_id", "tags", "difficulty"))
    topic_ids = {topic for topic, _, _ in rows if topic is not None}
    tags = sorted({str(tag) for _, listed, _ in rows for tag in (listed or [])})
    present = {difficulty for _, _, difficulty in rows}
    return PoolChoices(
        topics=list(Topic.objects.filter(pk__in=topic_ids).order_by("position")),
        tags=tags,
        difficulties=[(value, label) for value, label in Difficulty.choices if value in present],
    )


def viva_session_draw(*, session: VivaSession, pool: Pool, now: datetime) -> Response:
    """Draw a viva question from the pool that this session has not asked yet."""
    with transaction.atomic():
        locked = _locked_open(session)
        attempt = locked.attempt
        asked = list(attempt.responses.values_list("question_version__question_id", flat=True))
        drawn = {*asked, *locked.discarded}
        topics = Topic.objects.filter(course_id=attempt.quiz.course_id)
        if pool.topic_id is not None and not topics.filter(pk=pool.topic_id).exists():
            raise NoSuchTopic(
                f"This course has no topic {pool.topic_id}.", fields={"topic": ["no such topic"]}
            )
        allowed, slots = viva_questions_of(attempt.quiz)
        candidates = _candidates(attempt.quiz, pool, drawn, allowed)
        if not candidates:
            raise PoolExhausted(
                "No viva question of this quiz is left to ask in this session"
                + (" from that choice." if pool != Pool() else ".")
            )
        # Seeded by the attempt and the draw count, so a session's draws are reproducible.
        picked = random.Random(f"{attempt.seed}:{len(drawn)}").choice(candidates)  # noqa: S311
        if picked.current_version is None:  # excluded by the query; keeps the type exact
            raise PoolExhausted("The drawn question has no version.")
        slot = slots.get(picked.pk)
        response = Response.objects.create(
            attempt=attempt,
            position=len(asked),
            slot_position=len(asked),
            question_version=picked.current_version,
            points=picked.points if slot is None else slot_question_points(slot, picked),
            status=ResponseStatus.NEEDS_MARKING,
        )
        attempt_refresh_total(attempt=attempt, now=now)
        return response


def viva_session_discard(
    *, session: VivaSession, position: int, now: datetime, drawn_id: int | None = None
) -> VivaSession:
    """Put the last question drawn back unasked (drawn by mistake, or not one to ask this
    student): it leaves the attempt and is not drawn again in this session. A marked
    question stays: its mark is part of the record. `drawn_id` (the drawn question's id in
    the session) refuses the put-back when another question is at `position` by now; None
    skips that check (API clients written before it)."""
    with transaction.atomic():
        locked = _locked_open(session)
        attempt = attempt_lock(locked.attempt_id)
        last = attempt.responses.order_by("-position").first()
        if last is None or not 0 <= position <= last.position:
            raise NoSuchPosition(
                f"No question was drawn at position {position} in this session.",
                fields={"position": ["no such question"]},
            )
        named = attempt.responses.filter(position=position).values_list("pk", flat=True).first()
        _check_meant(position, named, drawn_id, "Nothing was put back")
        if last.position != position:
            raise QuestionKept(
                f"Only the last question drawn (question {last.position + 1}) can be put back.",
                fields={"position": ["not the last question drawn"]},
            )
        if last.marks.exists():
            raise QuestionKept(
                "This question is marked; a marked question stays in the viva.",
                fields={"position": ["marked"]},
            )
        locked.discarded = [*locked.discarded, last.question_version.question_id]
        locked.save(update_fields=["discarded"])
        last.delete()
        attempt_refresh_total(attempt=attempt, now=now)
        return locked


# The longest notes an examiner keeps of one question, from the page or the API.
MAX_NOTES_CHARS = 20_000


def _check_meant(position: int, found: int | None, drawn_id: int | None, outcome: str) -> None:
    """VivaQuestionChanged when `drawn_id` names another question than the one at `position`
    (None: an API client written before questions were named, not checked)."""
    if drawn_id is not None and found != drawn_id:
        raise VivaQuestionChanged(
            f"The question at position {position} is no longer the one meant: it was put "
            f"back and another drawn since (in another tab, or by another examiner). {outcome}; "
            "reload to see the viva as it is.",
            fields={"id": ["not the question at this position"]},
        )


def viva_session_notes(
    *, session: VivaSession, position: int, notes: str, drawn_id: int | None = None
) -> Response:
    """Store the examiner's notes of one question as its answer (`drawn_id` as for
    `viva_session_discard`)."""
    if len(notes) > MAX_NOTES_CHARS:
        raise AnswerTooLarge(
            f"The notes are {len(notes):,} characters long; {MAX_NOTES_CHARS:,} is the most "
            "a question's notes keep.",
            fields={"notes": [f"at most {MAX_NOTES_CHARS:,} characters"]},
        )
    with transaction.atomic():
        _locked_open(session)
        response = response_lock(attempt_id=session.attempt_id, position=position)
        if response is None:
            raise NoSuchPosition(
                f"No question was drawn at position {position} in this session.",
                fields={"position": ["no such question"]},
            )
        _check_meant(position, response.pk, drawn_id, "Nothing was recorded")
        response.answer = {"text": notes}
        response.save(update_fields=["answer"])
        return response


def viva_session_end(*, session: VivaSession, now: datetime) -> VivaSession:
    """End the session: every drawn question must be marked; the attempt is totalled."""
    with transaction.atomic():
        locked = _locked_open(session)
        attempt = attempt_lock(locked.attempt_id)
        unmarked = list(
            attempt.responses.filter(marks__isnull=True).values_list("position", flat=True)
        )
        if not attempt.responses.exists():
            raise UnmarkedQuestions(
                "No question was asked: draw one, or cancel the viva, which gives the student "
                "their attempt back.",
                fields={"positions": ["no question was asked"]},
            )
        if unmarked:
            raise UnmarkedQuestions(
                "Mark every question asked before ending the session.",
                fields={"positions": [str(p) for p in unmarked]},
            )
        attempt.submitted_at = now
        attempt.save(update_fields=["submitted_at"])
        attempt_refresh_total(attempt=attempt, now=now)
        locked.status, locked.ended_at = VivaSessionStatus.ENDED, now
        locked.save(update_fields=["status", "ended_at"])
        return locked


def viva_session_cancel(*, session: VivaSession) -> Quiz:
    """Cancel a viva in which no question is asked (none drawn, or every one put back): the
    session and its attempt go, so the student has that attempt again; the quiz it was of."""
    with transaction.atomic():
        locked = _locked_open(session)
        attempt = attempt_lock(locked.attempt_id)
        if attempt.responses.exists():
            raise QuestionKept(
                "Questions were drawn in this viva: put them back unasked to cancel it, or "
                "mark them and finish it.",
                fields={"session": ["questions drawn"]},
            )
        attempt.delete()  # the session with it
        return locked.attempt.quiz

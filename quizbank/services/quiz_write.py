"""Courses and quizzes written by authors, over the API and in the browser's quiz builder:
create, update, schedule, open and close. One set of rules for both.

A quiz's slots are fixed bank questions or pools (tag, topic, difficulty) of the
quiz's course, each with optional points of its own (what every question it draws
is worth in this quiz; none: the question's own points). Slots are replaced whole,
and only before anyone has attempted the quiz (attempts pin the versions and points
they drew, but the gradebook's columns are slots);
a replacement identical to the current slots (points included) is no change and
always allowed.
"""

import hashlib
import json
from collections.abc import Collection, Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.db import IntegrityError, transaction
from django.template.defaultfilters import pluralize

from config.locking import for_update
from quizbank.errors import QuizChanged, QuizChangedSinceRead, QuizInvalid, QuizLocked, SlugTaken
from quizbank.events import quiz_terms_changed
from quizbank.models import (
    Course,
    CourseMembership,
    Difficulty,
    GradingMethod,
    Question,
    Quiz,
    QuizSlot,
    ReleasePolicy,
    Role,
    Topic,
)
from quizbank.selectors import fixed_question_ids, pool_drawable
from quizbank.services.quiz_access import MAX_GRACE_PERIOD, MAX_TIME_LIMIT, schedule_problems

COURSE_OWNER_ROLES = (Role.AUTHOR, Role.EXAMINER)
MAX_ATTEMPTS_ALLOWED = 1000
MAX_DESCRIPTION = 20_000  # characters, for a course's or a quiz's description
MAX_SLOT_POINTS = Decimal(1000)
MIN_SLOT_POINTS = Decimal("0.01")  # more than 0, in hundredths


@dataclass(frozen=True)
class SlotSpec:
    """One slot: `question` (an id), or a pool of `draw_count` questions; `points` is what
    each of its questions is worth in the quiz (None: the question's own points)."""

    question: int | None = None
    draw_count: int = 1
    pool_tag: str = ""
    pool_topic: str = ""  # a topic slug of the quiz's course
    pool_difficulty: str = ""
    points: Decimal | None = None


def slot_spec(slot: QuizSlot) -> SlotSpec:
    """The spec that builds `slot` again."""
    if slot.question_id is not None:
        return SlotSpec(question=slot.question_id, points=slot.points)
    return SlotSpec(
        draw_count=slot.draw_count,
        pool_tag=slot.pool_tag,
        pool_topic=slot.pool_topic.slug if slot.pool_topic else "",
        pool_difficulty=slot.pool_difficulty,
        points=slot.points,
    )


@transaction.atomic
def course_create(*, slug: str, title: str, description: str = "", owner_id: int) -> Course:
    """A new course; its creator becomes its author and examiner."""
    taken = SlugTaken("A course with this slug exists.", fields={"slug": ["Already taken."]})
    if Course.objects.filter(slug=slug).exists():
        raise taken
    try:
        with transaction.atomic():  # a savepoint: the same slug created at the same moment
            course = Course.objects.create(slug=slug, title=title, description=description)
    except IntegrityError as exc:
        raise taken from exc
    CourseMembership.objects.bulk_create(
        CourseMembership(course=course, user_id=owner_id, role=role) for role in COURSE_OWNER_ROLES
    )
    return course


def course_update(*, course: Course, data: dict[str, Any]) -> Course:
    """Change a course's title or description."""
    for name in ("title", "description"):
        if name in data:
            setattr(course, name, data[name])
    course.save()
    return course


def _check_settings(quiz: Quiz) -> None:
    """Every rule of a quiz's settings, checked on the quiz as it would be saved."""
    problems = schedule_problems(opens_at=quiz.opens_at, closes_at=quiz.closes_at)
    if quiz.opens_at and quiz.closes_at and quiz.closes_at <= quiz.opens_at:
        problems["closes_at"] = ["The closing time must be after the opening time."]
    if quiz.time_limit is not None and not timedelta(0) < quiz.time_limit <= MAX_TIME_LIMIT:
        problems["time_limit"] = [
            f"Must be positive and at most {MAX_TIME_LIMIT.days} days (empty: untimed)."
        ]
    if not timedelta(0) <= quiz.grace_period <= MAX_GRACE_PERIOD:
        problems["grace_period"] = [
            f"Must not be negative, and at most {MAX_GRACE_PERIOD.days} days."
        ]
    if not 0 <= quiz.attempts_allowed <= MAX_ATTEMPTS_ALLOWED:
        problems["attempts_allowed"] = [f"Between 0 (unlimited) and {MAX_ATTEMPTS_ALLOWED}."]
    if not 0.0 <= quiz.penalty_per_attempt <= 1.0:
        problems["penalty_per_attempt"] = ["Between 0 and 1."]
    if quiz.release_policy not in ReleasePolicy.values:
        problems["release_policy"] = ["Unknown policy."]
    if quiz.grading_method not in GradingMethod.values:
        problems["grading_method"] = ["Unknown method."]
    if len(quiz.description) > MAX_DESCRIPTION:
        problems["description"] = [f"At most {MAX_DESCRIPTION:,} characters."]
    if problems:
        first = next(iter(problems.values()))[0]
        raise QuizInvalid(f"The quiz settings are not valid: {first}", fields=problems)


def _check_points(points: Decimal | None, where: str) -> None:
    if points is None:
        return
    # is_finite first: comparing a NaN raises.
    in_range = points.is_finite() and MIN_SLOT_POINTS <= points <= MAX_SLOT_POINTS
    if in_range and points == round(points, 2):
        return
    raise QuizInvalid(
        f"A slot's points must be more than 0 and at most {MAX_SLOT_POINTS}.",
        fields={
            f"{where}.points": [
                f"More than 0 and at most {MAX_SLOT_POINTS}, in hundredths at most; "
                "leave empty for the question's own points."
            ]
        },
    )


def _slot(quiz: Quiz, position: int, spec: SlotSpec, fixed: set[int]) -> QuizSlot:
    where = f"slots[{position}]"
    _check_points(spec.points, where)
    if spec.question is not None:
        question = Question.objects.filter(pk=spec.question, course_id=quiz.course_id).first()
        if question is None or question.current_version_id is None:
            raise QuizInvalid(
                "No such question in this course.",
                fields={f"{where}.question": ["No such question in this course."]},
            )
        return QuizSlot(quiz=quiz, position=position, question=question, points=spec.points)
    topic = None
    if spec.pool_topic:
        topic = Topic.objects.filter(course_id=quiz.course_id, slug=spec.pool_topic).first()
        if topic is None:
            raise QuizInvalid(
                "No such topic in this course.",
                fields={f"{where}.pool_topic": ["No such topic in this course."]},
            )
    if spec.pool_difficulty and spec.pool_difficulty not in Difficulty.values:
        raise QuizInvalid(
            "Unknown difficulty.", fields={f"{where}.pool_difficulty": ["Unknown difficulty."]}
        )
    slot = QuizSlot(
        quiz=quiz,
        position=position,
        draw_count=spec.draw_count,
        pool_tag=spec.pool_tag.strip(),
        pool_topic=topic,
        pool_difficulty=spec.pool_difficulty,
        points=spec.points,
    )
    if not (slot.pool_tag or topic or spec.pool_difficulty):
        raise QuizInvalid(
            "A slot needs a question or a pool.",
            fields={where: ["Name a question, or a pool tag, topic or difficulty."]},
        )
    held = len(pool_drawable(slot, fixed))
    if not 1 <= spec.draw_count <= held:
        questions = f"{held} question{pluralize(held)}" if held else "no question"
        if fixed:
            questions += " beside the quiz's fixed questions"
        most = f"At most {held}: the pool" if held else "The pool"
        raise QuizInvalid(
            f"The pool holds {questions}; this slot draws {spec.draw_count}.",
            fields={f"{where}.draw_count": [f"{most} holds {questions}."]},
        )
    return slot


def _check_no_repeats(slots: list[SlotSpec]) -> None:
    """A fixed question appears once: twice, a student would answer it twice."""
    first: dict[int, int] = {}
    for position, spec in enumerate(slots):
        if spec.question is None:
            continue
        if spec.question in first:
            where = f"slots[{position}].question"
            message = f"Question {spec.question} is already in slot {first[spec.question]}."
            raise QuizInvalid(message, fields={where: [message]})
        first[spec.question] = position


def _replace_slots(quiz: Quiz, slots: list[SlotSpec]) -> None:
    current = [slot_spec(s) for s in quiz.slots.select_related("pool_topic").order_by("position")]
    if slots == current:
        return
    if quiz.attempts.exists():
        raise QuizLocked("The quiz has attempts; its questions can no longer change.")
    _check_no_repeats(slots)
    fixed = fixed_question_ids(spec.question for spec in slots)
    built = [_slot(quiz, position, spec, fixed) for position, spec in enumerate(slots)]
    quiz.slots.all().delete()
    QuizSlot.objects.bulk_create(built)


def _save(quiz: Quiz) -> None:
    _check_settings(quiz)
    try:
        with transaction.atomic():
            quiz.save()
    except IntegrityError as exc:
        raise SlugTaken(
            "The course has a quiz with this slug.",
            fields={"slug": ["Already taken in this course."]},
        ) from exc


@transaction.atomic
def quiz_create(*, course: Course, data: dict[str, Any], slots: list[SlotSpec]) -> Quiz:
    """A new quiz of the course with these settings and slots."""
    quiz = Quiz(course=course, **data)
    _save(quiz)
    _replace_slots(quiz, slots)
    return quiz


# What decides when an open attempt must end; a change moves the open attempts' deadlines.
_TERMS = ("closes_at", "time_limit", "grace_period")


def _terms_of(quiz: Quiz) -> tuple[Any, ...]:
    return tuple(getattr(quiz, name) for name in _TERMS)


def _terms_changed(quiz: Quiz, before: tuple[Any, ...]) -> None:
    if _terms_of(quiz) != before:
        grace_before = before[_TERMS.index("grace_period")]
        quiz_terms_changed.send(sender=Quiz, quiz=quiz, user_ids=None, grace_before=grace_before)


def quiz_stamp(quiz: Quiz, settings: Iterable[str]) -> str:
    """A digest of the quiz's `settings` (names) and its slots as saved: what an edit began
    from, for quiz_update to refuse saving over a change made since."""
    slots = [slot_spec(s) for s in quiz.slots.select_related("pool_topic").order_by("position")]
    saved = {
        "settings": {name: getattr(quiz, name) for name in sorted(settings)},
        "slots": [asdict(spec) for spec in slots],
    }
    return hashlib.sha256(json.dumps(saved, default=str).encode()).hexdigest()


# Every setting an author may change (the API's quiz_update): the quiz's ETag covers them all.
EDITABLE_SETTINGS = (
    "slug",
    "title",
    "description",
    "time_limit",
    "opens_at",
    "closes_at",
    "grace_period",
    "attempts_allowed",
    "grading_method",
    "penalty_per_attempt",
    "shuffle_questions",
    "shuffle_choices",
    "release_policy",
)


def quiz_etag(quiz: Quiz) -> str:
    """The quiz's version as the API shows it (ETag): every editable setting and its slots."""
    return quiz_stamp(quiz, EDITABLE_SETTINGS)


QUIZ_CHANGED = (
    "This quiz was changed in another tab or by another author since you opened this page: "
    "nothing was saved. Reload to see their changes, then make yours again."
)


QUIZ_CHANGED_SINCE_READ = (
    "This quiz was changed since you read it (If-Match names an ETag it no longer has): "
    "nothing was saved. Read it again, then send your change with its new ETag."
)


@transaction.atomic
def quiz_update(
    *,
    quiz: Quiz,
    data: dict[str, Any],
    slots: list[SlotSpec] | None,
    seen: str | None = None,
    seen_etags: Collection[str] | None = None,
) -> Quiz:
    """Change the quiz's settings (schedule included) and, with `slots`, its questions.
    `seen` (quiz_stamp over the settings in `data`, when the edit began) refuses the change
    with QuizChanged when those settings or the slots are no longer what the editor saw;
    `seen_etags` (an API client's If-Match) refuses it unless one is the quiz's ETag."""
    quiz = for_update(Quiz).get(pk=quiz.pk)
    if seen is not None and seen != quiz_stamp(quiz, data):
        raise QuizChanged(QUIZ_CHANGED)
    if seen_etags is not None and quiz_etag(quiz) not in seen_etags:
        raise QuizChangedSinceRead(QUIZ_CHANGED_SINCE_READ)
    before = _terms_of(quiz)
    for name, value in data.items():
        setattr(quiz, name, value)
    _save(quiz)
    if slots is not None:
        _replace_slots(quiz, slots)
    _terms_changed(quiz, before)
    return quiz


@transaction.atomic
def quiz_open(*, quiz: Quiz, now: datetime) -> Quiz:
    """Open the quiz now; a closing time already past is cleared."""
    before = _terms_of(quiz)
    quiz.opens_at = now
    if quiz.closes_at is not None and quiz.closes_at <= now:
        quiz.closes_at = None
    quiz.save(update_fields=["opens_at", "closes_at"])
    _terms_changed(quiz, before)
    return quiz


@transaction.atomic
def quiz_close(*, quiz: Quiz, now: datetime) -> Quiz:
    """Close the quiz now: no attempt starts after this, and open attempts end now (plus
    the grace period), unless a student's override keeps their window open."""
    before = _terms_of(quiz)
    if quiz.opens_at is not None and quiz.opens_at >= now:
        quiz.opens_at = None
    quiz.closes_at = now
    quiz.save(update_fields=["opens_at", "closes_at"])
    _terms_changed(quiz, before)
    return quiz

"""The browser's quiz builder: settings, then fixed or pooled slots from the course's bank.

The API's quiz writes are in quiz_write.py; both check windows and slots against the same
models, each with its own validation for now.

Attempts pin the versions they drew, so editing a quiz never changes a past attempt."""

from dataclasses import dataclass, fields
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction

from quizbank.errors import QuizInvalid
from quizbank.models import Course, Difficulty, GradingMethod, Quiz, QuizSlot, ReleasePolicy
from quizbank.selectors import slot_pool


@dataclass(frozen=True)
class QuizInput:
    slug: str
    title: str
    description: str = ""
    time_limit: timedelta | None = None
    opens_at: datetime | None = None
    closes_at: datetime | None = None
    grace_period: timedelta = timedelta(0)
    attempts_allowed: int = 1
    grading_method: str = GradingMethod.HIGHEST
    shuffle_questions: bool = False
    shuffle_choices: bool = True
    release_policy: str = ReleasePolicy.IMMEDIATELY


@dataclass(frozen=True)
class SlotInput:
    question_id: int | None = None
    draw_count: int = 1
    pool_tag: str = ""
    pool_topic_id: int | None = None
    pool_difficulty: str = ""


def _check(data: QuizInput) -> None:
    problems: dict[str, list[str]] = {}
    if data.opens_at and data.closes_at and data.closes_at <= data.opens_at:
        problems["closes_at"] = ["must be after opens_at"]
    if data.time_limit is not None and data.time_limit <= timedelta(0):
        problems["time_limit"] = ["must be positive (empty: untimed)"]
    if data.grace_period < timedelta(0):
        problems["grace_period"] = ["must not be negative"]
    if not 0 <= data.attempts_allowed <= 100:
        problems["attempts_allowed"] = ["between 0 (unlimited) and 100"]
    if data.release_policy not in ReleasePolicy.values:
        problems["release_policy"] = ["unknown policy"]
    if data.grading_method not in GradingMethod.values:
        problems["grading_method"] = ["unknown method"]
    if problems:
        raise QuizInvalid("The quiz settings are not valid.", fields=problems)


def quiz_save(*, course: Course, data: QuizInput, quiz: Quiz | None = None) -> Quiz:
    """Create a quiz in the course, or update `quiz`'s settings."""
    _check(data)
    target = quiz or Quiz(course=course)
    for item in fields(data):
        setattr(target, item.name, getattr(data, item.name))
    try:
        with transaction.atomic():
            target.save()
    except IntegrityError:
        raise QuizInvalid(
            f"The course already has a quiz {data.slug!r}.", fields={"slug": ["taken"]}
        ) from None
    return target


def _slot(quiz: Quiz, position: int, data: SlotInput) -> QuizSlot:
    slot = QuizSlot(
        quiz=quiz,
        position=position,
        question_id=data.question_id,
        draw_count=1 if data.question_id else data.draw_count,
        pool_tag=data.pool_tag.strip(),
        pool_topic_id=data.pool_topic_id,
        pool_difficulty=data.pool_difficulty,
    )
    name = f"slots[{position}]"
    if data.question_id is not None:
        if not quiz.course.questions.filter(
            pk=data.question_id, current_version__isnull=False
        ).exists():
            raise QuizInvalid("No such question in this course.", fields={name: ["unknown"]})
        return slot
    if data.pool_topic_id and not quiz.course.topics.filter(pk=data.pool_topic_id).exists():
        raise QuizInvalid("No such topic in this course.", fields={name: ["unknown topic"]})
    if data.pool_difficulty and data.pool_difficulty not in Difficulty.values:
        raise QuizInvalid("Unknown difficulty.", fields={name: ["unknown difficulty"]})
    if not (slot.pool_tag or slot.pool_topic_id or slot.pool_difficulty):
        raise QuizInvalid("A pool needs a tag, topic or difficulty.", fields={name: ["empty"]})
    if not 1 <= data.draw_count <= len(slot_pool(slot)):
        raise QuizInvalid(
            "The pool has fewer questions than it should draw.", fields={name: ["too few"]}
        )
    return slot


def quiz_slots_set(*, quiz: Quiz, slots: list[SlotInput]) -> list[QuizSlot]:
    """Replace the quiz's slots, in order; each fixed question and pool from its course."""
    built = [_slot(quiz, position, data) for position, data in enumerate(slots)]
    with transaction.atomic():
        quiz.slots.all().delete()
        return QuizSlot.objects.bulk_create(built)

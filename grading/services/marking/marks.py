"""Viva marks: first and second marks, moderation, and the lock that guards a response
while it is marked."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from config.locking import for_update
from grading.errors import (
    AlreadyMarked,
    InvalidMark,
    NotFlagged,
    NotMarkable,
    NotYourMark,
    OwnAnswer,
    SameMarker,
)
from grading.models import Attempt, AttemptStatus, Response
from grading.models.marking import Mark, MarkChange, MarkingStatus, MarkRole
from grading.models.viva_sessions import VivaSession, VivaSessionStatus
from grading.services.attempts import response_lock_by_id
from grading.services.marking.outcome import mark_score, marking_apply, marking_state_of, rubric_of

# The longest texts a mark keeps, whichever page or endpoint sends them.
TEXT_LIMITS = {"comment": 10_000, "adjustment_reason": 2_000, "reason": 2_000}


@dataclass(frozen=True)
class MarkInput:
    levels: list[int]
    adjustment: float = 0.0
    adjustment_reason: str = ""
    comment: str = ""
    # Why the mark changes (kept with the change in the logs); optional.
    reason: str = ""
    # Also require a blind second mark, in the same transaction as this mark: asked for
    # after it, the mark would count as the final score for a moment, and a student shown
    # results as soon as they are graded would later read that it was their mark before.
    ask_second_mark: bool = False


def mark_snapshot(mark: Mark) -> dict[str, Any]:
    keys = (
        "role",
        "levels",
        "rubric_points",
        "adjustment",
        "adjustment_reason",
        "comment",
        "score",
    )
    return {key: getattr(mark, key) for key in keys}


def _check_texts(data: MarkInput) -> None:
    for name, limit in TEXT_LIMITS.items():
        length = len(getattr(data, name))
        if length > limit:
            raise InvalidMark(
                f"The {name.replace('_', ' ')} is {length:,} characters long; "
                f"{limit:,} is the most a mark keeps.",
                fields={name: [f"at most {limit:,} characters"]},
            )


def _fill(mark: Mark, response: Response, data: MarkInput) -> None:
    _check_texts(data)
    if data.adjustment and not data.adjustment_reason.strip():
        raise InvalidMark(
            "An adjustment needs a reason.", fields={"adjustment_reason": ["required"]}
        )
    rubric = rubric_of(response.question_version.content)
    points, score = mark_score(rubric, data.levels, data.adjustment)
    mark.levels, mark.rubric_points, mark.score = list(data.levels), points, score
    mark.adjustment, mark.adjustment_reason = data.adjustment, data.adjustment_reason
    mark.comment = data.comment


def _save_logged(
    mark: Mark, actor: User, before: dict[str, Any] | None, now: datetime, reason: str = ""
) -> None:
    mark.updated_at = now
    mark.save()
    MarkChange.objects.create(
        mark=mark,
        response=mark.response,
        actor=actor,
        before=before,
        after=mark_snapshot(mark),
        reason=reason.strip(),
        created_at=now,
    )


def _role_for(response: Response, marker: User) -> str:
    existing = {m.role: m.marker_id for m in Mark.objects.filter(response=response)}
    if marker.pk in existing.values():
        raise AlreadyMarked("You already marked this answer; change your mark instead.")
    if MarkRole.FIRST not in existing:
        return MarkRole.FIRST
    if MarkRole.SECOND not in existing:
        return MarkRole.SECOND
    raise AlreadyMarked("This answer already has two marks; a moderator decides now.")


def refuse_own_answer(*, student_id: int, examiner: User) -> None:
    """An examiner who is also a student of the course never marks or examines themselves."""
    if student_id == examiner.pk:
        raise OwnAnswer("You cannot mark or examine your own answers.")


def mark_create(*, response_id: int, marker: User, data: MarkInput, now: datetime) -> Mark:
    """Add the first or (blind) second mark of a viva answer and recompute its score."""
    with transaction.atomic():
        response = response_lock_for_marking(response_id)
        refuse_own_answer(student_id=response.attempt.user_id, examiner=marker)
        mark = Mark(response=response, marker=marker, role=_role_for(response, marker))
        mark.created_at = now
        _fill(mark, response, data)
        _second_mark_ask(response, now, asked=data.ask_second_mark)
        _save_logged(mark, marker, None, now)
        marking_apply(response=response, actor=marker, now=now)
        return mark


def mark_update(*, mark_id: int, marker: User, data: MarkInput, now: datetime) -> Mark:
    """Change one's own mark; the old and new mark (and the reason) are logged, and the
    score change too if the answer's score moves. Saving the same mark again changes and
    logs nothing."""
    with transaction.atomic():
        response_id = Mark.objects.values_list("response_id", flat=True).get(pk=mark_id)
        response = response_lock_for_marking(response_id)
        mark = for_update(Mark).get(pk=mark_id)
        if mark.marker_id != marker.pk:
            raise NotYourMark("Only the examiner who gave a mark may change it.")
        before = mark_snapshot(mark)
        _fill(mark, response, data)
        asked = _second_mark_ask(response, now, asked=data.ask_second_mark)
        if mark_snapshot(mark) == before:
            if asked:
                marking_apply(response=response, actor=marker, now=now)
            return mark
        _save_logged(mark, marker, before, now, data.reason)
        marking_apply(response=response, actor=marker, now=now, reason=data.reason)
        return mark


def mark_moderate(*, response_id: int, moderator: User, data: MarkInput, now: datetime) -> Mark:
    """The moderator's mark on a flagged answer; it is final."""
    with transaction.atomic():
        response = response_lock_for_marking(response_id)
        refuse_own_answer(student_id=response.attempt.user_id, examiner=moderator)
        if marking_state_of(response, now).status != MarkingStatus.FLAGGED:
            raise NotFlagged("Only answers flagged for moderation can be moderated.")
        if Mark.objects.filter(response=response, marker=moderator).exists():
            raise SameMarker("A moderator must not be one of the answer's markers.")
        if data.ask_second_mark:
            raise InvalidMark(
                "A moderator's mark is final: no second mark is asked for with it.",
                fields={"ask_second_mark": ["only with a first or second mark"]},
            )
        mark = Mark(response=response, marker=moderator, role=MarkRole.MODERATOR, created_at=now)
        _fill(mark, response, data)
        _save_logged(mark, moderator, None, now)
        marking_apply(response=response, actor=moderator, now=now)
        return mark


def second_mark_request(*, response_id: int, examiner: User, now: datetime) -> str:
    """Ask for a blind second mark of this answer; returns the new marking status."""
    with transaction.atomic():
        response = response_lock_for_marking(response_id)
        _second_mark_ask(response, now, asked=True)
        return marking_apply(response=response, actor=examiner, now=now).status


def _second_mark_ask(response: Response, now: datetime, *, asked: bool) -> bool:
    """Record that a blind second mark is required (the caller holds the response's lock and
    applies the marking rule after); whether this changed anything."""
    if not asked:
        return False
    state = marking_state_of(response, now)
    if state.second_requested:
        return False
    state.second_requested = True
    state.save(update_fields=["second_requested"])
    return True


def response_lock_for_marking(response_id: int) -> Response:
    """The locked response; NotMarkable unless it is a viva answer ready for an examiner."""
    response = response_lock_by_id(response_id)
    if response.question_version.content.get("type") != "viva":
        raise NotMarkable("Only viva answers are marked on a rubric.")
    if response.attempt.status == AttemptStatus.OPEN and not _in_live_session(response.attempt):
        raise NotMarkable("The student is still working on this attempt.")
    return response


def _in_live_session(attempt: Attempt) -> bool:
    return VivaSession.objects.filter(attempt=attempt, status=VivaSessionStatus.OPEN).exists()

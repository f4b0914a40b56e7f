"""Autosave one response, refusing a stale copy or a late answer."""

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from grading.errors import AttemptClosed, DeadlinePassed, InvalidAnswer, StaleVersion
from grading.models import Attempt, AttemptStatus, Response, ResponseStatus
from grading.services.answers import answer_validate
from grading.services.attempt_clock import answers_close_at, attempt_is_overdue
from quizbank.errors import NetworkNotAllowed
from quizbank.services.quiz_access import address_allowed

# A longer gap between two saves is a student who walked away, not one still working.
ACTIVITY_GAP_CAP = timedelta(minutes=10)


def _check_open(attempt: Attempt, now: datetime, address: str) -> None:
    if not address_allowed(networks=attempt.quiz.allowed_networks or [], address=address):
        raise NetworkNotAllowed(
            "Answers to this quiz are accepted only from the exam room's network.",
            fields={"address": ["outside the quiz's allowed networks"]},
        )
    if attempt_is_overdue(attempt, now):
        closes = answers_close_at(attempt)
        stamp = closes.isoformat() if closes else ""
        raise DeadlinePassed(f"Answers closed at {stamp}; this answer was not saved.")
    if attempt.status != AttemptStatus.OPEN:
        raise AttemptClosed("The attempt has been submitted; answers can no longer change.")


def activity_credit(*, attempt: Attempt, now: datetime) -> timedelta:
    """Time since the attempt's last start or save, within [0, ACTIVITY_GAP_CAP]."""
    gap = now - (attempt.last_activity_at or attempt.started_at)
    return max(timedelta(0), min(gap, ACTIVITY_GAP_CAP))


def response_autosave(
    *, attempt: Attempt, position: int, answer: Any, version: int, now: datetime, address: str = ""
) -> Response:
    """Save the answer if `version` is the response's current version; bump the version.
    A quiz limited to allowed networks takes answers only from them (no address: refused)."""
    with transaction.atomic():
        # Lock the attempt so a submit cannot slip between the check and the write.
        locked = (
            Attempt.objects.select_for_update(no_key=True, of=("self",))
            .select_related("quiz")
            .get(pk=attempt.pk)
        )
        _check_open(locked, now, address)
        response = (
            Response.objects.select_for_update()
            .select_related("question_version")
            .filter(attempt=attempt, position=position)
            .first()
        )
        if response is None:
            raise InvalidAnswer(
                f"The attempt has no question at position {position}.",
                fields={"position": ["No such question in this attempt."]},
            )
        if version != response.version:
            raise StaleVersion(
                f"This answer was saved from version {version}, "
                f"but version {response.version} is newer.",
                fields={"current_version": [str(response.version)]},
            )
        value = answer_validate(content=response.question_version.content, answer=answer)
        response.answer = value
        response.version += 1
        response.saved_at = now
        response.status = ResponseStatus.EMPTY if value is None else ResponseStatus.SAVED
        # The gap since the last save is credited to the question being saved now.
        response.time_spent += activity_credit(attempt=locked, now=now)
        response.save(update_fields=["answer", "version", "saved_at", "status", "time_spent"])
        locked.last_activity_at = now
        locked.save(update_fields=["last_activity_at"])
    return response

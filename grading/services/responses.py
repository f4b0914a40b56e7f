"""A student's answers: check their shape, autosave them, grade them, hand them in."""

import json
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction

from config.locking import for_update
from config.queries import unique_or_none
from grading.content import variant_content
from grading.errors import (
    AnswerTooLarge,
    AttemptClosed,
    DeadlinePassed,
    InvalidAnswer,
    NoSuchPosition,
    StaleVersion,
)
from grading.models import Attempt, AttemptStatus, Response, ResponseStatus
from grading.scoring import UnscorableQuestion, score_answer
from grading.scoring.numeric import (
    number_in_unit,
    number_text_problem,
    parse_number,
    unit_problem,
)
from grading.selectors import own_attempt
from grading.services.attempts import (
    TOTAL_FIELDS,
    answers_close_at,
    attempt_is_overdue,
    attempt_lock,
    attempt_total,
)
from grading.services.code import code_job, code_job_enqueue_on_commit, new_job_id
from quizbank.errors import NetworkNotAllowed
from quizbank.models import Quiz
from quizbank.presenters import shown_order
from quizbank.selectors import is_oral
from quizbank.services.quiz_access import address_allowed, quiz_terms
from runner.api import GradingJob
from runner.contract import CaseError

# Check an answer's shape for its question type before it is saved.

_SHAPES: dict[str, tuple[str, type | tuple[type, ...]]] = {
    "single_choice": ("choice", int),
    "multiple_choice": ("choices", list),
    "true_false": ("value", bool),
    "numeric": ("value", (int, float, str)),
    "short_text": ("text", str),
    "code": ("source", str),
    "viva": ("text", str),
}


def _invalid(field: str, message: str) -> InvalidAnswer:
    return InvalidAnswer(message, fields={f"answer.{field}": [message]})


def _check_choices(field: str, content: dict[str, Any], picked: list[Any]) -> None:
    count = len(content.get("choices", []))
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in picked):
        raise _invalid(field, "Choices are identified by whole numbers.")
    if len(set(picked)) != len(picked) or any(not 0 <= i < count for i in picked):
        raise _invalid(field, f"Each choice must be a distinct number from 0 to {count - 1}.")


def _check_value(qtype: str, field: str, value: Any, content: dict[str, Any]) -> None:
    if qtype == "single_choice":
        _check_choices(field, content, [value])
    elif qtype == "multiple_choice":
        _check_choices(field, content, value)
    elif qtype == "numeric":
        unit = str(content.get("unit", ""))
        number = number_in_unit(value, unit)
        try:
            parse_number(number)
        except ValueError as exc:
            reason = unit_problem(number, unit) or str(exc)
            raise _invalid(field, f"{reason[:1].upper()}{reason[1:]}.") from None
        if problem := number_text_problem(number):
            raise _invalid(field, f"Not one number: {problem}.")


def answer_validate(*, content: dict[str, Any], answer: Any) -> dict[str, Any] | None:
    """The answer if its shape fits the question type; None clears the response."""
    if answer is None:
        return None
    limit = int(settings.GRADING_MAX_ANSWER_BYTES)
    # UTF-8 as stored, not ASCII escapes: "é" is 2 bytes, not the 6 of "\u00e9".
    size = len(json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode())
    qtype = str(content.get("type"))
    field, kind = _SHAPES[qtype]
    if size > limit:
        raise AnswerTooLarge(
            f"The answer is {size:,} bytes; the limit is {limit:,} bytes: shorten it by at "
            f"least {size - limit:,} (a plain letter or digit is one byte, an accented one two).",
            fields={f"answer.{field}": [f"at most {limit:,} bytes"]},
        )
    if not isinstance(answer, dict) or set(answer) != {field}:
        raise _invalid(field, f"A {qtype} answer is an object with exactly the key '{field}'.")
    value = answer[field]
    wrong_bool = isinstance(value, bool) and kind is not bool
    if not isinstance(value, kind) or wrong_bool:
        raise _invalid(field, f"'{field}' has the wrong type for a {qtype} question.")
    _check_value(qtype, field, value, content)
    return {field: value}


# A student names a choice by its place on the page (quizbank.presenters.shown_order);
# answers are stored, scored and counted by the author's choice indexes.


def _renumber(answer: Any, new_id: Callable[[int], int]) -> Any:
    if not isinstance(answer, dict):
        return answer
    if isinstance(answer.get("choice"), int):
        return {"choice": new_id(answer["choice"])}
    if isinstance(answer.get("choices"), list):
        return {"choices": [new_id(i) for i in answer["choices"]]}
    return answer


def answer_as_stored(*, response: Response, answer: Any) -> Any:
    """A checked answer with the student's choice ids turned into the author's indexes."""
    order = shown_order(response.question_version.content, response.choice_order)
    return _renumber(answer, lambda shown: order[shown] if shown < len(order) else shown)


def answer_as_shown(response: Response) -> Any:
    """The stored answer with the author's choice indexes turned into the student's ids."""
    order = shown_order(response.question_version.content, response.choice_order)
    place = {index: shown for shown, index in enumerate(order)}
    return _renumber(response.answer, lambda index: place.get(index, index))


def feedback_as_shown(response: Response) -> Any:
    """The stored feedback with each chosen choice's author index turned into the student's
    id, in the order the student saw them (scoring keys them by the author's index)."""
    feedback = response.feedback
    if not isinstance(feedback, dict) or not isinstance(feedback.get("choices"), list):
        return feedback
    order = shown_order(response.question_version.content, response.choice_order)
    place = {index: shown for shown, index in enumerate(order)}
    choices = [
        {**c, "choice": place.get(c["choice"], c["choice"])}
        for c in feedback["choices"]
        if isinstance(c, dict) and isinstance(c.get("choice"), int)
    ]
    return {**feedback, "choices": sorted(choices, key=lambda c: int(c["choice"]))}


# Autosave one response, refusing a stale copy or a late answer.

# A longer gap between two saves is a student who walked away, not one still working.
ACTIVITY_GAP_CAP = timedelta(minutes=10)


def attempt_check_open(
    *,
    attempt: Attempt,
    now: datetime,
    address: str,
    refused: str = "this answer was not saved",
    closed: str = "answers can no longer change",
) -> None:
    """Refuse unless the attempt takes answers now: open, within its deadline and grace, and
    from an allowed network. `refused` and `closed` end the messages (what did not happen)."""
    if not address_allowed(networks=attempt.quiz.allowed_networks or [], address=address):
        raise NetworkNotAllowed(
            "Answers to this quiz are accepted only from the exam room's network.",
            fields={"address": ["outside the quiz's allowed networks"]},
        )
    if attempt_is_overdue(attempt, now):
        closes = answers_close_at(attempt)
        stamp = closes.isoformat() if closes else ""
        raise DeadlinePassed(f"Answers closed at {stamp}; {refused}.")
    if attempt.status != AttemptStatus.OPEN:
        raise AttemptClosed(f"The attempt has been submitted; {closed}.")


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
        locked = attempt_lock(attempt.pk)
        attempt_check_open(attempt=locked, now=now, address=address)
        response = unique_or_none(
            for_update(Response)
            .select_related("question_version")
            .filter(attempt=attempt, position=position)
        )
        if response is None:  # a 404, as a position outside what the URL takes is
            raise NoSuchPosition(
                f"The attempt has no question at position {position}.",
                fields={"position": ["No such question in this attempt."]},
            )
        # An answer the question cannot take is refused as such whatever its version: a
        # reload would not make it valid.
        value = answer_validate(content=response.question_version.content, answer=answer)
        value = answer_as_stored(response=response, answer=value)
        if version != response.version:
            if version < response.version and value == response.answer:
                return response  # a save sent again after its reply was lost: it landed
            raise StaleVersion(
                f"This answer was edited from version {version}, but the saved answer is at "
                f"version {response.version}: reload it, then save again.",
                fields={"current_version": [str(response.version)]},
            )
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


# Grade one response when its attempt is submitted.

logger = logging.getLogger(__name__)

_FIELDS = ["status", "score", "feedback", "job_id", "graded_at"]


def _set(response: Response, status: str, score: float | None, now: datetime | None) -> None:
    response.status = status
    response.score = score
    response.graded_at = now


def response_grade(*, response: Response, now: datetime) -> GradingJob | None:
    """Score choice/numeric/text now, mark code as queued for the runner (its job is
    returned, to send once committed), leave viva for an examiner; the caller saves. Nothing
    written scores 0 at once, a written viva answer too; an oral one waits for its examiner."""
    content = variant_content(
        response.question_version.content, response.params, response.generated_answers
    )
    qtype = str(content.get("type"))
    response.feedback = {}
    job = None
    blank = _white_space_only(response.answer)
    if is_oral(content) or (qtype == "viva" and response.answer is not None and not blank):
        _set(response, ResponseStatus.NEEDS_MARKING, None, None)
    elif response.answer is None or blank:
        response.feedback = {"general": "No answer was given."}
        _set(response, ResponseStatus.GRADED, 0.0, now)
    elif qtype == "code":
        response.job_id = new_job_id(response)
        job = _queue_code(response)
    else:
        _score(response, content, response.answer, now)
    return job


def _score(
    response: Response, content: dict[str, Any], answer: dict[str, Any], now: datetime
) -> None:
    """Graded now, or an error an examiner can see when the stored question cannot be scored
    (the answer stays, ready for a regrade once the question is mended)."""
    try:
        verdict = score_answer(content, answer)
    except UnscorableQuestion as error:
        version_id = response.question_version_id
        logger.error("question version %s cannot be scored: %s", version_id, error)
        response.feedback = {"general": f"This question cannot be graded: {error}."}
        _set(response, ResponseStatus.ERROR, None, None)
        return
    response.feedback = verdict.feedback
    _set(response, ResponseStatus.GRADED, verdict.score, now)


def _white_space_only(answer: Any) -> bool:
    """Written text that is only white space: no answer either."""
    text = answer.get("text") if isinstance(answer, dict) else None
    return isinstance(text, str) and not text.strip()


def _queue_code(response: Response) -> GradingJob | None:
    """Queued for the runner with its job, or an error an examiner can see when the stored
    question is one the runner's contract refuses (the answer stays, ready for a regrade)."""
    try:
        job = code_job(response, response.job_id)
    except CaseError as error:
        version_id = response.question_version_id
        logger.error("question version %s is not a valid code question: %s", version_id, error)
        response.feedback = {"general": f"This question cannot be graded: {error}."}
        _set(response, ResponseStatus.ERROR, None, None)
        return None
    _set(response, ResponseStatus.QUEUED, None, None)
    return job


# Submit an attempt (by the student, or automatically at its deadline), exactly once.


def attempt_submit(*, attempt: Attempt, now: datetime, idempotency_key: str = "") -> Attempt:
    """Close the attempt and grade what was saved; a second call returns the first result.
    It counts as automatic when its time (and grace) had run out, decided on the locked row."""
    with transaction.atomic():
        return _submit_locked(attempt_lock(attempt.pk), now, idempotency_key)


def attempt_submit_own(
    *, user_id: int, attempt_id: int, now: datetime, idempotency_key: str = ""
) -> Attempt:
    """`attempt_submit` of the student's own attempt, its access checked on the locked row
    (one read fewer than a check before the lock); Http404 for anyone else's or none."""
    with transaction.atomic():
        try:
            locked: Attempt | None = attempt_lock(attempt_id)
        except Attempt.DoesNotExist:
            locked = None
        return _submit_locked(own_attempt(user_id, locked), now, idempotency_key)


def _submit_locked(locked: Attempt, now: datetime, idempotency_key: str) -> Attempt:
    if locked.status != AttemptStatus.OPEN:
        return locked
    # A student's late submit is the same as the automatic one: what was saved counts.
    late = attempt_is_overdue(locked, now)
    locked.status = AttemptStatus.SUBMITTED
    locked.submitted_at = now
    locked.auto_submitted = late
    locked.idempotency_key = idempotency_key[:100]
    responses = list(locked.responses.select_related("question_version").order_by("position"))
    jobs = [response_grade(response=response, now=now) for response in responses]
    # One UPDATE per answer: Django's bulk_update compiles a CASE per field and answer,
    # which is slower than the separate statements even for eight answers (4.5 ms
    # against 2.8 ms, one answer 1.4 against 0.7 ms).
    for response in responses:
        Response.objects.filter(pk=response.pk).update(
            **{name: getattr(response, name) for name in _FIELDS}
        )
    for job in jobs:
        if job is not None:
            code_job_enqueue_on_commit(job)
    attempt_total(locked, responses, now)
    locked.save(update_fields=["submitted_at", "auto_submitted", "idempotency_key", *TOTAL_FIELDS])
    return locked


def attempts_retime(
    *, quiz: Quiz, user_ids: list[int] | None, grace_before: timedelta, now: datetime
) -> int:
    """After the quiz's terms changed (its close, time limit or grace period, or a student's
    override): submit the open attempts whose answers had closed under the old terms (their
    deadline plus `grace_before`), and give the others the deadline the new terms give their
    start, submitting those already past it. How many were submitted."""
    # A live viva's attempt has no deadline: the examiner ends it.
    open_attempts = Attempt.objects.filter(
        quiz=quiz, status=AttemptStatus.OPEN, viva_session__isnull=True
    )
    if user_ids is not None:
        open_attempts = open_attempts.filter(user_id__in=user_ids)
    submitted = 0
    for attempt_id in open_attempts.order_by("pk").values_list("pk", flat=True):
        locked = attempt_lock(attempt_id)
        if locked.status != AttemptStatus.OPEN:
            continue
        # Closed under the old terms, it stays closed: a longer grace or limit reopens nothing.
        closed = locked.deadline is not None and now > locked.deadline + grace_before
        if not closed:
            terms = quiz_terms(quiz=quiz, user_id=locked.user_id)
            locked.deadline = terms.deadline(locked.started_at)
            locked.save(update_fields=["deadline"])
        if closed or attempt_is_overdue(locked, now):
            attempt_submit(attempt=locked, now=now)
            submitted += 1
    return submitted


def attempt_close_if_overdue(*, attempt: Attempt, now: datetime) -> Attempt:
    """Submit an open attempt whose time (and grace) ran out; otherwise return it as is."""
    if attempt_is_overdue(attempt, now):
        return attempt_submit(attempt=attempt, now=now)
    return attempt


def attempts_close_overdue(*, now: datetime, limit: int = 500) -> int:
    """Auto-submit every overdue open attempt (the beat task); returns how many closed. One
    attempt that cannot be submitted is logged and left for the next sweep, never stopping
    the others (they are taken oldest deadline first, so it would stop them every time)."""
    candidates = Attempt.objects.filter(status=AttemptStatus.OPEN, deadline__lt=now)
    closed = 0
    for attempt in candidates.select_related("quiz").order_by("deadline")[:limit]:
        if not attempt_is_overdue(attempt, now):
            continue
        try:
            attempt_submit(attempt=attempt, now=now)
        except (OperationalError, InterfaceError):
            raise  # the database itself: the task's retry, not this attempt's problem
        except Exception:
            logger.exception("auto-submitting overdue attempt %s failed", attempt.pk)
            continue
        closed += 1
    return closed

"""Students ask for a released question to be looked at again; examiners answer."""

from datetime import datetime
from decimal import Decimal

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from config.locking import for_update
from grading.errors import (
    InvalidMark,
    RegradeNotAllowed,
    RequestAlreadyAnswered,
)
from grading.models import Response, ResponseStatus
from grading.models.marking import ScoreChange, ScoreSource
from grading.models.regrade import RegradeRequest, RegradeRequestStatus
from grading.selectors import results_visible
from grading.services.attempts import attempt_refresh_total, response_lock_by_id
from grading.services.marking.marks import refuse_own_answer


def regrade_request_create(
    *, response: Response, student: User, reason: str, now: datetime
) -> RegradeRequest:
    """Open a request on one of the student's own released, graded answers."""
    if not reason.strip():
        raise RegradeNotAllowed(
            "Say why the answer should be regraded.", fields={"reason": ["required"]}
        )
    if response.status != ResponseStatus.GRADED or not results_visible(
        student, response.attempt, now
    ):
        raise RegradeNotAllowed("Only graded answers whose results are released can be regraded.")
    try:
        with transaction.atomic():
            return RegradeRequest.objects.create(
                response=response, student=student, reason=reason.strip(), created_at=now
            )
    except IntegrityError as error:
        raise RegradeNotAllowed("This answer already has an open regrade request.") from error


def _new_score(response: Response, points: Decimal | None) -> float:
    if points is None or not Decimal(0) <= points <= response.points:
        raise InvalidMark(
            f"Accepting needs the new points, between 0 and {response.points}.",
            fields={"points": [f"must be between 0 and {response.points}"]},
        )
    return float(points / response.points) if response.points else 0.0


def _accepted_score(response: Response, points: Decimal | None) -> float:
    """The new score of an accepted request; RegradeNotAllowed where points cannot be set."""
    if response.status != ResponseStatus.GRADED or response.score is None:
        raise RegradeNotAllowed(
            "This answer is with its examiners again (a second mark or a regrade) and has no "
            "final score to change; answer the request once it is marked."
        )
    score = _new_score(response, points)
    # A viva's score follows its marks: points set past them are undone by the next mark edit.
    if response.question_version.content.get("type") == "viva" and score != response.score:
        current = Decimal(str(response.score)) * response.points
        raise RegradeNotAllowed(
            "A viva answer's score follows its marks: change the mark (giving the request as "
            f"its reason), then accept with the points it gives (now {current:.2f}).",
            fields={"points": [f"must be the marked points, {current:.2f}"]},
        )
    return score


def regrade_request_answer(
    *,
    request_id: int,
    examiner: User,
    accept: bool,
    reply: str,
    points: Decimal | None,
    now: datetime,
) -> RegradeRequest:
    """Accept with new points (logged as a score change) or reject, with a reply."""
    response_id = RegradeRequest.objects.values_list("response_id", flat=True).get(pk=request_id)
    with transaction.atomic():
        response = response_lock_by_id(response_id)
        request = for_update(RegradeRequest).get(pk=request_id)
        if request.status != RegradeRequestStatus.OPEN:
            raise RequestAlreadyAnswered("This regrade request has already been answered.")
        refuse_own_answer(student_id=request.student_id, examiner=examiner)
        request.score_before = request.score_after = response.score
        if accept:
            request.score_after = _accepted_score(response, points)
            _set_score(response, examiner, request.score_after, reply, now)
        request.status = RegradeRequestStatus.ACCEPTED if accept else RegradeRequestStatus.REJECTED
        request.reply, request.answered_by, request.answered_at = reply, examiner, now
        request.save()
        return request


def _set_score(response: Response, examiner: User, score: float, reply: str, now: datetime) -> None:
    before = response.score
    response.score, response.graded_at = score, now
    response.save(update_fields=["score", "graded_at"])
    if before != score:
        ScoreChange.objects.create(
            response=response,
            actor=examiner,
            source=ScoreSource.REGRADE_REQUEST,
            before=before,
            after=score,
            reason=reply,
            created_at=now,
        )
    attempt_refresh_total(attempt=response.attempt, now=now)

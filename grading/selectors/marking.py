"""Reads for examiners: the marking queue, one answer to mark, its audit trail."""

from collections.abc import Iterable
from typing import Any

from django.db.models import F, Q, QuerySet, Value
from django.db.models.functions import Coalesce
from django.http import Http404

from grading.models import AttemptStatus, Response, ResponseStatus
from grading.models.marking import Mark, MarkChange, MarkingStatus, ScoreChange
from grading.selectors import released_since
from quizbank.access import AnyUser, courses_for, holds_every_role, require_role, user_id
from quizbank.models import Role

EXAMINERS = [Role.EXAMINER]


def examined_courses_filter(user: AnyUser, prefix: str) -> Q:
    """A Q over `<prefix>course` limiting rows to courses the user examines (all for staff)."""
    if holds_every_role(user):
        return Q()
    courses = courses_for(user).filter(
        memberships__user_id=user_id(user), memberships__role=Role.EXAMINER
    )
    return Q(**{f"{prefix}course__in": courses})


def marking_queue(user: AnyUser) -> QuerySet[Response]:
    """Viva answers in the user's examined courses, annotated with `marking_status`; a
    written answer left blank scored 0 when submitted and waits for nobody (an examiner
    may still mark it, which lists it again)."""
    ready = Q(attempt__status__in=[AttemptStatus.SUBMITTED, AttemptStatus.GRADED]) | Q(
        attempt__viva_session__isnull=False
    )
    scored_blank = Q(status=ResponseStatus.GRADED, marking__isnull=True, marks__isnull=True)
    return (
        Response.objects.filter(ready, question_version__question__type="viva")
        .exclude(scored_blank)
        .filter(examined_courses_filter(user, "attempt__quiz__"))
        .annotate(marking_status=Coalesce(F("marking__status"), Value(MarkingStatus.UNMARKED)))
        .select_related("attempt__quiz", "attempt__user", "question_version__question")
    )


def access_marking_response(user: AnyUser, response_id: int) -> Response:
    """A viva answer of a course the user examines; 404 outside the user's courses."""
    response = (
        Response.objects.select_related(
            "attempt__quiz__course", "question_version", "attempt__user"
        )
        .filter(pk=response_id, question_version__question__type="viva")
        .first()
    )
    if response is None:
        raise Http404("No such answer.")
    require_role(user, response.attempt.quiz.course_id, EXAMINERS)
    return response


def access_mark(user: AnyUser, mark_id: int) -> Mark:
    """A mark on an answer of a course the user examines; 404 otherwise."""
    response_id = Mark.objects.filter(pk=mark_id).values_list("response_id", flat=True).first()
    if response_id is None:
        raise Http404("No such mark.")
    access_marking_response(user, response_id)
    return Mark.objects.get(pk=mark_id)


def marks_hidden(user: AnyUser, response: Response) -> bool:
    """Blind second marking: while a second mark is awaited, others' marks stay hidden
    from an examiner who has not marked this answer yet."""
    state = getattr(response, "marking", None)
    if state is None or state.status != MarkingStatus.AWAITING_SECOND:
        return False
    return not Mark.objects.filter(response=response, marker_id=user_id(user)).exists()


def blind_responses(user: AnyUser, responses: Iterable[Response]) -> set[int]:
    """Ids of the answers whose marks (and scores derived from them) `user` may not see yet."""
    return {r.pk for r in responses if marks_hidden(user, r)}


def visible_marks(user: AnyUser, response: Response) -> list[Mark]:
    marks = list(Mark.objects.filter(response=response).select_related("marker"))
    if marks_hidden(user, response):
        return [m for m in marks if m.marker_id == user_id(user)]
    return marks


def marking_history(user: AnyUser, response: Response) -> dict[str, Any]:
    """The append-only logs of an answer (mark changes hidden while marking is blind); each
    score change says whether it came after the student was shown the result."""
    # In the order they were written (each under the answer's lock): two examiners saving at
    # once take their times before the lock, so a later entry can carry an earlier time.
    changes = MarkChange.objects.filter(response=response).select_related("actor").order_by("pk")
    scores = ScoreChange.objects.filter(response=response).select_related("actor").order_by("pk")
    if marks_hidden(user, response):
        # Earlier scores would give the first mark away, so they wait too.
        changes, scores = changes.filter(actor_id=user_id(user)), scores.none()
    since = released_since(response.attempt)
    rows = [
        {
            **{f: getattr(c, f) for f in _SCORE_FIELDS},
            "actor": c.actor,
            "after_release": since is not None and c.created_at > since,
        }
        for c in scores
    ]
    return {"mark_changes": list(changes), "score_changes": rows}


_SCORE_FIELDS = ("source", "before", "after", "reason", "regrade_run_id", "created_at")

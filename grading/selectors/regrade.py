"""Reads of regrade runs and regrade requests, scoped to the user's courses."""

from django.db.models import Q, QuerySet
from django.http import Http404

from grading.models.regrade import RegradeItemStatus, RegradeRequest, RegradeRun
from grading.selectors.marking import EXAMINERS, examined_courses_filter
from quizbank.access import AnyUser, require_role, user_id


def regrade_runs_for(user: AnyUser) -> QuerySet[RegradeRun]:
    return RegradeRun.objects.filter(examined_courses_filter(user, "quiz__")).select_related(
        "created_by"
    )


def regrade_run_failures(run: RegradeRun) -> list[dict[str, int | str]]:
    """The answers the run could not regrade, each with the reason (a mark the new rubric
    refuses, a runner error), so that an examiner can act on a run's `failed` count."""
    items = run.items.filter(status=RegradeItemStatus.FAILED).order_by("pk")
    return [
        {"response": response, "message": message}
        for response, message in items.values_list("response_id", "message")
    ]


def access_regrade_run(user: AnyUser, run_id: int) -> RegradeRun:
    """A run of a course the user examines; 404 outside the user's courses."""
    run = RegradeRun.objects.select_related("quiz", "created_by").filter(pk=run_id).first()
    if run is None:
        raise Http404("No such regrade run.")
    require_role(user, run.quiz.course_id, EXAMINERS)
    return run


def regrade_requests_for(user: AnyUser) -> QuerySet[RegradeRequest]:
    """A student's own requests, plus every request in the courses the user examines."""
    examined = examined_courses_filter(user, "response__attempt__quiz__")
    mine = Q(student_id=user_id(user))
    scope = mine | examined if examined else Q()
    return RegradeRequest.objects.filter(scope).select_related(
        "response__attempt", "response__question_version"
    )


def access_request_to_answer(user: AnyUser, request_id: int) -> RegradeRequest:
    """A request in a course the user examines (404 elsewhere, 403 for a student)."""
    request = (
        RegradeRequest.objects.select_related("response__attempt__quiz")
        .filter(pk=request_id)
        .first()
    )
    if request is None:
        raise Http404("No such regrade request.")
    require_role(user, request.response.attempt.quiz.course_id, EXAMINERS)
    return request

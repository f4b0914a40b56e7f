"""Reads of live viva sessions for examiners."""

from django.db.models import Count, QuerySet
from django.http import Http404

from grading.models.viva_sessions import VivaSession
from grading.selectors.marking import EXAMINERS, examined_courses_filter
from quizbank.access import AnyUser, require_role


def viva_sessions_for(user: AnyUser) -> QuerySet[VivaSession]:
    """Sessions in the courses the user examines (all for staff), with `questions` drawn."""
    return (
        VivaSession.objects.filter(examined_courses_filter(user, "attempt__quiz__"))
        .select_related("attempt__quiz", "attempt__user", "examiner")
        .annotate(questions=Count("attempt__responses"))
    )


def access_viva_session(user: AnyUser, session_id: int) -> VivaSession:
    """A session of a course the user examines; 404 outside the user's courses."""
    session = (
        VivaSession.objects.select_related("attempt__quiz__course", "attempt__user", "examiner")
        .filter(pk=session_id)
        .first()
    )
    if session is None:
        raise Http404("No such viva session.")
    require_role(user, session.attempt.quiz.course_id, EXAMINERS)
    return session

"""Lock a response for marking: the attempt row first, then the response (submit's order)."""

from grading.errors import NotMarkable
from grading.models import Attempt, AttemptStatus, Response
from grading.models.viva_sessions import VivaSession, VivaSessionStatus


def response_lock_for_marking(response_id: int) -> Response:
    """The locked response; NotMarkable unless it is a viva answer ready for an examiner."""
    attempt_id = Response.objects.values_list("attempt_id", flat=True).get(pk=response_id)
    Attempt.objects.select_for_update(of=("self",)).get(pk=attempt_id)
    response = (
        Response.objects.select_for_update(of=("self",))
        .select_related("question_version", "attempt__quiz")
        .get(pk=response_id)
    )
    if response.question_version.content.get("type") != "viva":
        raise NotMarkable("Only viva answers are marked on a rubric.")
    if response.attempt.status == AttemptStatus.OPEN and not _in_live_session(response.attempt):
        raise NotMarkable("The student is still working on this attempt.")
    return response


def _in_live_session(attempt: Attempt) -> bool:
    return VivaSession.objects.filter(attempt=attempt, status=VivaSessionStatus.OPEN).exists()

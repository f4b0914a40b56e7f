"""Lock a response for marking (attempts.response_lock) and check it can be marked."""

from grading.errors import NotMarkable
from grading.models import Attempt, AttemptStatus, Response
from grading.models.viva_sessions import VivaSession, VivaSessionStatus
from grading.services.attempts import response_lock_by_id


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

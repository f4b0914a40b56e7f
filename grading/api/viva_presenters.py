"""An examiner's view of a live viva session and the questions asked so far."""

from typing import Any

from grading.api.marking_presenters import marking_view
from grading.models.viva_sessions import VivaSession
from quizbank.access import AnyUser


def viva_session_view(user: AnyUser, session: VivaSession) -> dict[str, Any]:
    attempt = session.attempt
    responses = attempt.responses.select_related("question_version", "attempt__user")
    return {
        "id": session.pk,
        "quiz": attempt.quiz_id,
        "attempt": attempt.pk,
        "student": attempt.user.username,
        "examiner": session.examiner.username,
        "status": session.status,
        "started_at": session.started_at,
        "ended_at": session.ended_at,
        "attempt_status": attempt.status,
        "score": attempt.score,
        "max_score": attempt.max_score,
        "questions": [
            marking_view(user, r, anonymous=False) for r in responses.order_by("position")
        ],
    }

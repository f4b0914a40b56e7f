"""Recompute a viva response's marking state and carry the final mark into its score."""

from datetime import datetime
from typing import Any

from django.contrib.auth.models import User

from grading.models import Response, ResponseStatus
from grading.models.marking import (
    Mark,
    MarkingState,
    MarkingStatus,
    MarkRole,
    ScoreChange,
    ScoreSource,
)
from grading.services.attempts import attempt_refresh_total
from grading.services.marking_policy import quiz_marking_policy
from grading.services.marking_rubric import level_feedback, rubric_of
from grading.services.marking_rule import marking_outcome

_DECIDING: dict[str, tuple[str, ...]] = {
    MarkingStatus.MODERATED: (MarkRole.MODERATOR,),
    MarkingStatus.FINAL: (MarkRole.FIRST, MarkRole.SECOND),
}


def marking_state_of(response: Response, now: datetime) -> MarkingState:
    state, _ = MarkingState.objects.get_or_create(response=response, defaults={"updated_at": now})
    return state


def _feedback(response: Response, marks: list[Mark], status: str) -> dict[str, Any]:
    rubric = rubric_of(response.question_version.content)
    roles = _DECIDING.get(status, ())
    shown = [m for m in marks if m.role in roles]
    return {
        "marks": [
            {
                "rubric": level_feedback(rubric, m.levels),
                "comment": m.comment,
                "adjustment": m.adjustment,
                "adjustment_reason": m.adjustment_reason,
            }
            for m in shown
        ]
    }


def _set_score(
    response: Response, score: float | None, feedback: dict[str, Any], now: datetime
) -> None:
    unchanged = response.status == ResponseStatus.GRADED and response.score == score
    response.score = score
    response.status = ResponseStatus.GRADED if score is not None else ResponseStatus.NEEDS_MARKING
    if not unchanged:
        response.graded_at = now if score is not None else None
    response.feedback = feedback if score is not None else {}
    response.save(update_fields=["score", "status", "graded_at", "feedback"])


def marking_apply(
    *,
    response: Response,
    actor: User,
    now: datetime,
    change: ScoreChange | None = None,
    reason: str = "",
) -> MarkingState:
    """Apply the marking rule; log a score change if the response's score moved.

    `change` (unsaved) carries the source, reason and run of a regrade; marking by default,
    with the examiner's `reason` for changing a mark after the marking status.

    The caller holds the attempt and response locks (attempt first, as submit does).
    """
    marks = list(Mark.objects.filter(response=response))
    state = marking_state_of(response, now)
    policy = quiz_marking_policy(response.attempt.quiz)
    status, final = marking_outcome(
        {m.role: m.score for m in marks},
        needs_second=policy.double_marking or state.second_requested,
        threshold=policy.disagreement_threshold,
    )
    state.status, state.final_score, state.updated_at = status, final, now
    state.save(update_fields=["status", "final_score", "updated_at"])
    before = response.score
    _set_score(response, final, _feedback(response, marks, status), now)
    if before != final:
        why = f"marking: {status}" + (f"; {reason.strip()}" if reason.strip() else "")
        row = change or ScoreChange(source=ScoreSource.MARKING, reason=why)
        row.response, row.actor, row.created_at = response, actor, now
        row.before, row.after = before, final
        row.save()
    attempt_refresh_total(attempt=response.attempt, now=now)
    return state

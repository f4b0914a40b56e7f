"""What a set of marks decides: the agreement rule, rubric points and feedback, and
applying the outcome to a response."""

from datetime import datetime
from typing import Any

from django.contrib.auth.models import User

from grading.errors import InvalidMark
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
from grading.services.marking.policy import quiz_marking_policy

_EPSILON = 1e-9


def marking_outcome(
    scores: dict[str, float], *, needs_second: bool, threshold: float
) -> tuple[str, float | None]:
    """(marking status, final score or None) for the marks' scores keyed by role."""
    if MarkRole.MODERATOR in scores:
        return MarkingStatus.MODERATED, scores[MarkRole.MODERATOR]
    first, second = scores.get(MarkRole.FIRST), scores.get(MarkRole.SECOND)
    if first is None and second is None:
        return MarkingStatus.UNMARKED, None
    if first is not None and second is not None:
        if abs(first - second) <= threshold + _EPSILON:
            return MarkingStatus.FINAL, (first + second) / 2
        return MarkingStatus.FLAGGED, None
    if needs_second:
        return MarkingStatus.AWAITING_SECOND, None
    only = first if first is not None else second
    return MarkingStatus.FINAL, only


def rubric_of(content: dict[str, Any]) -> list[dict[str, Any]]:
    """The rubric criteria of a viva version, in bank-format order."""
    return [dict(item) for item in content.get("rubric", [])]


def rubric_maximum(rubric: list[dict[str, Any]]) -> float:
    """Sum over criteria of each criterion's highest level points."""
    return sum(
        max((float(lv["points"]) for lv in c.get("levels", [])), default=0.0) for c in rubric
    )


def rubric_points(rubric: list[dict[str, Any]], levels: list[int]) -> float:
    """Points of the chosen level of every criterion; InvalidMark names a bad entry."""
    if len(levels) != len(rubric):
        raise InvalidMark(
            f"Pick one level for each of the {len(rubric)} criteria; got {len(levels)}.",
            fields={"levels": [f"expected {len(rubric)} entries"]},
        )
    total = 0.0
    for index, (criterion, level) in enumerate(zip(rubric, levels, strict=True)):
        options = criterion.get("levels", [])
        if not 0 <= level < len(options):
            # Counted from 1 for people; `fields` keeps the request's own index.
            name = f"criterion {index + 1} ({criterion.get('criterion', '')})"
            raise InvalidMark(
                f"Choose a level for {name}."
                if level < 0
                else f"The {name} has {len(options)} levels; there is no level {level + 1}.",
                fields={f"levels[{index}]": [f"must be between 0 and {len(options) - 1}"]},
            )
        total += float(options[level]["points"])
    return total


def mark_score(
    rubric: list[dict[str, Any]], levels: list[int], adjustment: float
) -> tuple[float, float]:
    """(rubric points, share of the maximum) for chosen levels plus an adjustment."""
    points = rubric_points(rubric, levels)
    maximum = rubric_maximum(rubric)
    adjusted = points + adjustment
    if maximum <= 0 or adjusted < -_EPSILON or adjusted > maximum + _EPSILON:
        raise InvalidMark(
            f"Rubric points plus adjustment must lie between 0 and {maximum:g}.",
            fields={"adjustment": [f"{points:g} + {adjustment:g} is out of range"]},
        )
    return points, min(1.0, max(0.0, adjusted / maximum))


def level_feedback(rubric: list[dict[str, Any]], levels: list[int]) -> list[dict[str, Any]]:
    """What a student sees of a mark: criterion, level label, its points and descriptor."""
    rows = []
    for criterion, level in zip(rubric, levels, strict=False):
        options = criterion.get("levels", [])
        if 0 <= level < len(options):
            chosen = options[level]
            rows.append(
                {
                    "criterion": str(criterion.get("criterion", "")),
                    "level": str(chosen.get("label", "")),
                    "points": float(chosen["points"]),
                    "descriptor": str(chosen.get("descriptor", "")),
                }
            )
    return rows


_DECIDING: dict[str, tuple[str, ...]] = {
    MarkingStatus.MODERATED: (MarkRole.MODERATOR,),
    MarkingStatus.FINAL: (MarkRole.FIRST, MarkRole.SECOND),
}


def marking_state_of(response: Response, now: datetime) -> MarkingState:
    state, _ = MarkingState.objects.get_or_create(response=response, defaults={"updated_at": now})
    return state


def _feedback(response: Response, marks: list[Mark], status: str) -> dict[str, Any]:
    rubric = rubric_of(response.question_version.content)
    maximum = rubric_maximum(rubric)
    roles = _DECIDING.get(status, ())
    shown = [m for m in marks if m.role in roles]
    return {
        "marks": [
            {
                "rubric": level_feedback(rubric, m.levels),
                "comment": m.comment,
                "adjustment": m.adjustment,
                "adjustment_reason": m.adjustment_reason,
                # The question's score is this share of its points (the slot's, in a quiz).
                "rubric_points": m.rubric_points + m.adjustment,
                "rubric_maximum": maximum,
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

"""The rule that turns a response's marks into its final score (a pure function).

- no mark: unmarked;
- one mark: final, unless a second mark is required (then it waits);
- two marks within the threshold (a share of the maximum): their mean;
- two marks further apart: flagged until a moderator marks;
- a moderator's mark is final, whatever the others say.
"""

from grading.models.marking import MarkingStatus, MarkRole

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

"""Rubric arithmetic on a viva version's content (pure functions)."""

from typing import Any

from grading.errors import InvalidMark

_EPSILON = 1e-9


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
            raise InvalidMark(
                f"Criterion {index} ({criterion.get('criterion', '')}) has no level {level}.",
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

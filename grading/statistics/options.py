"""Option (distractor) rates of a choice question whose versions may order choices differently.

A pick is an index into the choices of the version the student saw, so each
response is read against its own version and the option is identified by its
text. Rows follow the newest version's order; options that only older versions
offered come after, with no index.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class OptionRate:
    choice: int | None  # index in the newest version; None: only older versions had it
    text: str
    correct: bool
    count: int
    rate: float


def _label(choice: Mapping[str, Any]) -> str:
    return str(choice.get("text", "")).strip()


def _rows(choices: Mapping[int, Sequence[Mapping[str, Any]]]) -> list[tuple[int | None, str, bool]]:
    """(index in the newest version or None, text, correct), newest version first."""
    rows: list[tuple[int | None, str, bool]] = []
    seen: set[str] = set()
    newest = max(choices, default=0)
    for number in sorted(choices, reverse=True):
        for index, choice in enumerate(choices[number]):
            text = _label(choice)
            if text not in seen:
                seen.add(text)
                shown = index if number == newest else None
                rows.append((shown, text, bool(choice.get("correct"))))
    return rows


def option_rates(
    choices: Mapping[int, Sequence[Mapping[str, Any]]], picks: Sequence[tuple[int, Sequence[int]]]
) -> list[OptionRate]:
    """Each option's count and rate = count / len(picks), counting every response once.

    `choices` maps a version number to that version's choices; `picks` holds one
    (version number, picked indices) per response, [] for a response that picked none.
    A multiple-choice response counts towards every option it picked, so rates may sum
    past 1.
    """
    counts: dict[str, int] = {}
    for number, picked in picks:
        offered = choices.get(number, [])
        texts = {_label(offered[i]) for i in set(picked) if 0 <= i < len(offered)}
        for text in texts:
            counts[text] = counts.get(text, 0) + 1
    total = len(picks)
    return [
        OptionRate(
            index, text, correct, counts.get(text, 0), counts.get(text, 0) / total if total else 0.0
        )
        for index, text, correct in _rows(choices)
    ]


def omitted(picks: Sequence[tuple[int, Sequence[int]]]) -> int:
    """Responses that picked no option (no answer, or an empty multiple-choice answer)."""
    return sum(1 for _, picked in picks if not picked)

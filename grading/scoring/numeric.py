"""Numeric answers: a list of accepted values with tolerances; the first match wins."""

import math
import re
from typing import Any

from grading.scoring.verdict import UnscorableQuestion, Verdict, clamp
from quizbank.bankfiles.schema import MAX_MAGNITUDE

MAX_TEXT_LENGTH = 100
_TOO_LONG = f"a number is at most {MAX_TEXT_LENGTH} characters"
_TOO_LARGE = f"the number is too large: it must be at most {MAX_MAGNITUDE:g} in size"


def parse_number(raw: object) -> float:
    """A float from a JSON number or a numeric string, finite and at most MAX_MAGNITUDE
    in size; ValueError otherwise (never OverflowError)."""
    if isinstance(raw, bool):
        raise ValueError("a number is required, not true/false")
    typed_digits = isinstance(raw, str) and any(c in "0123456789" for c in raw)
    if isinstance(raw, str):
        if len(raw) > MAX_TEXT_LENGTH:
            raise ValueError(_TOO_LARGE if _too_large(raw) else _TOO_LONG)
        if "_" in raw:  # Python's float() reads "1_3" as 13; a student did not write 13
            raise ValueError("a number is written without underscores")
        text = raw.strip().replace(",", ".")
        try:
            raw = float(text)
        except ValueError:
            shown = text if len(text) <= 20 else text[:20] + "…"
            raise ValueError(
                f"{shown!r} is not a number: write digits, with a point or a comma for "
                "decimals and e for powers of ten (2.5, -0,75, 1e-3)"
            ) from None
    if not isinstance(raw, int | float):
        raise ValueError("a number is required")
    # int and float compare exactly, so a huge int is refused before float() could
    # overflow; NaN fails every comparison and is refused with infinities.
    if abs(raw) <= MAX_MAGNITUDE:
        return float(raw)
    if isinstance(raw, int) or math.isfinite(raw) or typed_digits:  # "1e400" reads as inf
        raise ValueError(_TOO_LARGE)
    raise ValueError(f"the number must be finite and at most {MAX_MAGNITUDE:g} in size")


# "1,000" is a thousand to some students and one to others; "1,5" is one and a half to all.
_AMBIGUOUS_COMMA = re.compile(r"[+-]?[0-9]{1,3},[0-9]{3}")


def number_text_problem(raw: object) -> str | None:
    """Why a number a student types cannot be read one way only, or None. Checked when an
    answer is saved (answers saved before this rule are still scored as they were read)."""
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    if text.count(",") > 1 or ("," in text and "." in text):
        return "write the number without thousands separators (1000000, not 1,000,000)"
    if _AMBIGUOUS_COMMA.fullmatch(text):
        return (
            f"{text} could be read as a whole number or as a decimal: write it without the "
            "comma, or with a point before the decimals"
        )
    return None


def number_in_unit(raw: object, unit: str) -> object:
    """What a student typed, with the question's own unit after the number taken off ("64 MiB"
    or "64MiB" in a question in MiB: "64"): the page asks for the answer in that unit.
    Anything else as typed, for parse_number to read or refuse."""
    unit = unit.strip()
    if not isinstance(raw, str) or not unit or not raw.strip().endswith(unit):
        return raw
    number = raw.strip().removesuffix(unit).rstrip()
    try:
        parse_number(number)
    except ValueError:
        return raw
    return number


# A number with something after it that starts like a unit: "12 ms", "3.5cm", "1e-3 s", "50 %".
_NUMBER_THEN_UNIT = re.compile(
    r"([+-]?(?:[0-9]+[.,]?[0-9]*|[.,][0-9]+)(?:[eE][+-]?[0-9]+)?)\s*(?![eE][+-]?$)([^\s0-9.,+_-].*)"
)


def _float_or_none(text: str) -> float | None:
    try:
        return float(text.replace(",", "."))
    except ValueError:
        return None


def _too_large(text: str) -> bool:
    """Whether `text` spells a number (a long run of digits, say) beyond MAX_MAGNITUDE."""
    value = _float_or_none(text)
    return value is not None and not math.isnan(value) and abs(value) > MAX_MAGNITUDE


def unit_problem(raw: object, unit: str) -> str | None:
    """Why a number typed with a unit (not the question's own) after it is refused, or None:
    only the number is read, and a unit is never converted."""
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    found = _NUMBER_THEN_UNIT.fullmatch(text) if len(text) <= MAX_TEXT_LENGTH else None
    # "1e101" is a number (out of range), not the number 1 with the unit "e101".
    if found is None or _float_or_none(text) is not None:
        return None
    shown = text if len(text) <= 20 else text[:20] + "…"
    after = found.group(2) if len(found.group(2)) <= 12 else found.group(2)[:12] + "…"
    if unit.strip():
        return f"type only the number, in {unit.strip()}: {shown!r} has {after!r} after it"
    return f"type only the number, without a unit: {shown!r} has {after!r} after it"


def _accepted(index: int, accepted: dict[str, Any]) -> tuple[float, float]:
    """An accepted answer's value and tolerance; UnscorableQuestion for one stored before the
    bank refused it (a value beyond MAX_MAGNITUDE)."""
    try:
        return parse_number(accepted["value"]), parse_number(accepted.get("tolerance", 0) or 0)
    except (KeyError, ValueError) as exc:
        raise UnscorableQuestion(f"answer {index + 1} of the question: {exc}") from None


def _matches(value: float, target: float, tolerance: float, accepted: dict[str, Any]) -> bool:
    if accepted.get("tolerance_mode", "absolute") == "relative":
        tolerance *= abs(target)
    # A tiny slack so that 0.1 + 0.2 style rounding never fails an exact answer.
    return abs(value - target) <= tolerance + 1e-12 * max(1.0, abs(target))


def score_numeric(content: dict[str, Any], answer: dict[str, Any]) -> Verdict:
    """The fraction of the first accepted answer within tolerance, else zero."""
    value = parse_number(number_in_unit(answer["value"], str(content.get("unit", ""))))
    answers = content.get("answers", [])
    # Every accepted answer is read first: a bad one fails the question whatever the answer.
    readings = [_accepted(index, accepted) for index, accepted in enumerate(answers)]
    for accepted, (target, tolerance) in zip(answers, readings, strict=True):
        if _matches(value, target, tolerance, accepted):
            text = str(accepted.get("feedback", ""))
            return Verdict(clamp(float(accepted.get("fraction", 1.0))), {"answer": text})
    return Verdict(0.0, {})

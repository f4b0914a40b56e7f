"""Short text answers: literal or full-match regex, with case and whitespace rules."""

import re
from typing import Any

from grading.scoring.verdict import Verdict, clamp

_SPACES = re.compile(r"\s+")


def normalise(text: str, *, whitespace: str, case_sensitive: bool) -> str:
    """Apply the question's whitespace rule (normalize, exact, ignore) and case rule."""
    if whitespace == "normalize":
        text = _SPACES.sub(" ", text).strip()
    elif whitespace == "ignore":
        text = _SPACES.sub("", text)
    return text if case_sensitive else text.casefold()


def _matches(given: str, accepted: dict[str, Any], *, whitespace: str, case: bool) -> bool:
    if "regex" in accepted:
        flags = 0 if case else re.IGNORECASE
        return re.fullmatch(str(accepted["regex"]), given, flags) is not None
    wanted = normalise(str(accepted.get("text", "")), whitespace=whitespace, case_sensitive=case)
    return given == wanted


def score_text(content: dict[str, Any], answer: dict[str, Any]) -> Verdict:
    """The fraction of the first accepted answer that matches, else zero."""
    whitespace = str(content.get("whitespace", "normalize"))
    case = bool(content.get("case_sensitive", False))
    given = normalise(str(answer["text"]), whitespace=whitespace, case_sensitive=case)
    for accepted in content.get("answers", []):
        if _matches(given, accepted, whitespace=whitespace, case=case):
            text = str(accepted.get("feedback", ""))
            return Verdict(clamp(float(accepted.get("fraction", 1.0))), {"answer": text})
    return Verdict(0.0, {})

"""Short text answers: literal or full-match regex, with case and whitespace rules."""

import logging
import re
from typing import Any

import regex

from grading.scoring.verdict import Verdict, clamp

logger = logging.getLogger(__name__)
# An author's pattern runs on a student's text: one that backtracks catastrophically
# (`(a+)+b` on a long run of a's) gives up after this long and counts as no match.
PATTERN_TIMEOUT_S = 0.1

_SPACES = re.compile(r"\s+")
_FENCE = re.compile(r"^```[\w+-]*[ \t]*\n(?P<body>.*?)\n?[ \t]*```$", re.DOTALL)
_BACKTICKS = re.compile(r"^(?P<ticks>`+)(?P<body>.*)(?P=ticks)$", re.DOTALL)
_CONTEXT = re.compile(r"^(?:with\s+|@)\s*(?P<body>.*?)\s*:?$", re.DOTALL | re.IGNORECASE)
_EMPTY_CALL = re.compile(r"\(\s*\)$")
_DOTTED_NAME = re.compile(r"^\.?\s*(?:[A-Za-z_]\w*\s*\.\s*)*([A-Za-z_]\w*)$")


def bare_name(text: str) -> str:
    """The name a code-style answer refers to: `with torch.inference_mode():` → `inference_mode`.

    Drops surrounding whitespace, backticks and code fences, a `with ...:` or
    decorator wrapper, empty call parentheses and any leading object or module
    qualifier. Text that is not a (dotted) name, e.g. `a(1 - a)`, keeps its form.
    """
    text = text.strip()
    for wrapper in (_FENCE, _BACKTICKS):
        match = wrapper.match(text)
        if match:
            text = match.group("body").strip()
    context = _CONTEXT.match(text)
    if context:
        text = context.group("body")
    text = _EMPTY_CALL.sub("", text).strip()
    dotted = _DOTTED_NAME.match(text)
    return dotted.group(1) if dotted else text


def normalise(text: str, *, whitespace: str, case_sensitive: bool) -> str:
    """Apply the question's whitespace rule (normalize, exact, ignore) and case rule."""
    if whitespace == "normalize":
        text = _SPACES.sub(" ", text).strip()
    elif whitespace == "ignore":
        text = _SPACES.sub("", text)
    return text if case_sensitive else text.casefold()


def _forms(text: str, *, whitespace: str, case: bool) -> set[str]:
    """The text as typed and as a bare name, each under the question's rules."""
    return {
        normalise(text, whitespace=whitespace, case_sensitive=case),
        normalise(bare_name(text), whitespace=whitespace, case_sensitive=case),
    }


def _matches(given: set[str], accepted: dict[str, Any], *, whitespace: str, case: bool) -> bool:
    if "regex" in accepted:
        flags = 0 if case else regex.IGNORECASE
        pattern = str(accepted["regex"])
        return any(_fullmatch(pattern, form, flags) for form in given)
    wanted = _forms(str(accepted.get("text", "")), whitespace=whitespace, case=case)
    return not given.isdisjoint(wanted)


def _fullmatch(pattern: str, text: str, flags: int) -> bool:
    try:
        return regex.fullmatch(pattern, text, flags, timeout=PATTERN_TIMEOUT_S) is not None
    except TimeoutError:
        logger.warning("the answer pattern %r gave up after %s s", pattern, PATTERN_TIMEOUT_S)
        return False


def score_text(content: dict[str, Any], answer: dict[str, Any]) -> Verdict:
    """The fraction of the first accepted answer that matches, else zero."""
    whitespace = str(content.get("whitespace", "normalize"))
    case = bool(content.get("case_sensitive", False))
    given = _forms(str(answer["text"]), whitespace=whitespace, case=case)
    for accepted in content.get("answers", []):
        if _matches(given, accepted, whitespace=whitespace, case=case):
            text = str(accepted.get("feedback", ""))
            return Verdict(clamp(float(accepted.get("fraction", 1.0))), {"answer": text})
    return Verdict(0.0, {})

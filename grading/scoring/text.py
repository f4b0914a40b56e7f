"""Short text answers: literal or full-match regex, with case and whitespace rules."""

import logging
import re
import time
from typing import Any

import regex

from grading.scoring.verdict import Verdict, clamp

logger = logging.getLogger(__name__)
# An author's pattern runs on a student's text: one that backtracks catastrophically
# (`(a|a)+b` on a long run of a's) gives up after this long and counts as no match.
PATTERN_TIMEOUT_S = 0.1
# ... and all of one answer's patterns together: a question of many such patterns must not
# hold the submit (and its attempt's lock) for seconds; those left untried match nothing.
ANSWER_PATTERNS_BUDGET_S = 0.3

_SPACES = re.compile(r"\s+")
_FENCE_INFO = re.compile(r"[\w+-]*[ \t]*")  # the language name after the opening fence
_CONTEXT = re.compile(r"(?:with\s|@)", re.IGNORECASE)  # a `with` statement or a decorator
_EMPTY_CALL = re.compile(r"\(\s*\)$")
_DOTTED_NAME = re.compile(r"^\.?\s*(?:[A-Za-z_]\w*\s*\.\s*)*([A-Za-z_]\w*)$")


def bare_name(text: str) -> str:
    """The name a code-style answer refers to: `with torch.inference_mode():` → `inference_mode`.

    Drops surrounding whitespace, backticks and code fences, a `with ...:` or
    decorator wrapper, empty call parentheses and any leading object or module
    qualifier. Text that is not a (dotted) name, e.g. `a(1 - a)`, keeps its form.
    """
    text = _inside_fence(text.strip()).strip()
    text = _inside_backticks(text).strip()
    if _CONTEXT.match(text):
        # Sliced, not matched: a lazy body before `\s*:?$` retries every end on long spaces.
        text = text[1 if text.startswith("@") else 4 :].lstrip()
        text = text.removesuffix(":").rstrip()
    text = _EMPTY_CALL.sub("", text).strip()
    dotted = _DOTTED_NAME.match(text)
    return dotted.group(1) if dotted else text


def _inside_fence(text: str) -> str:
    """The code of a fenced block (```python, a new line, the code, ```), else the text.
    Sliced, not matched: a lazy pattern would try every end on a long run of spaces."""
    first_line_end = text.find("\n")
    if not (text.startswith("```") and text.endswith("```")) or first_line_end < 0:
        return text
    if not _FENCE_INFO.fullmatch(text, 3, first_line_end) or len(text) - 3 <= first_line_end:
        return text
    body = text[first_line_end + 1 : len(text) - 3].rstrip(" \t")
    return body.removesuffix("\n")


def _inside_backticks(text: str) -> str:
    """The text between as many backticks at its start as at its end (`x`, ``x``), else the
    text. Counted, not matched: a pattern with a back-reference backtracks for minutes on a
    long run of backticks."""
    leading = len(text) - len(text.lstrip("`"))
    trailing = len(text) - len(text.rstrip("`"))
    ticks = min(leading, trailing, len(text) // 2)
    return text[ticks : len(text) - ticks] if ticks else text


def normalise(text: str, *, whitespace: str, case_sensitive: bool) -> str:
    """Apply the question's whitespace rule (normalize, exact, ignore) and case rule."""
    if whitespace == "normalize":
        text = _SPACES.sub(" ", text).strip()
    elif whitespace == "ignore":
        text = _SPACES.sub("", text)
    return text if case_sensitive else text.casefold()


def _forms(text: str, *, whitespace: str, case: bool) -> set[str]:
    """The text as typed and as a bare name, each under the question's rules; an empty form
    (a blank answer, or one of only backticks) is none, and matches nothing."""
    forms = {
        normalise(text, whitespace=whitespace, case_sensitive=case),
        normalise(bare_name(text), whitespace=whitespace, case_sensitive=case),
    }
    return {form for form in forms if form.strip()}


def _matches(
    given: set[str], accepted: dict[str, Any], *, whitespace: str, case: bool, deadline: float
) -> bool:
    if "regex" in accepted:
        flags = 0 if case else regex.IGNORECASE
        pattern = str(accepted["regex"])
        return any(_fullmatch(pattern, form, flags, deadline) for form in given)
    wanted = _forms(str(accepted.get("text", "")), whitespace=whitespace, case=case)
    return not given.isdisjoint(wanted)


def _fullmatch(pattern: str, text: str, flags: int, deadline: float) -> bool:
    timeout = min(PATTERN_TIMEOUT_S, deadline - time.monotonic())
    if timeout <= 0:
        logger.warning("the answer pattern %r was not tried: the answer's time was spent", pattern)
        return False
    try:
        return regex.fullmatch(pattern, text, flags, timeout=timeout) is not None
    except TimeoutError:
        logger.warning("the answer pattern %r gave up after %.3f s", pattern, timeout)
        return False
    except (regex.error, OverflowError, ValueError, RecursionError):
        # Checked when the question was saved; one stored before that check (or by an older
        # release) matches nothing rather than stopping the whole attempt's grading.
        logger.error("the answer pattern %r cannot be compiled", pattern, exc_info=True)
        return False


def score_text(content: dict[str, Any], answer: dict[str, Any]) -> Verdict:
    """The fraction of the first accepted answer that matches, else zero."""
    whitespace = str(content.get("whitespace", "normalize"))
    case = bool(content.get("case_sensitive", False))
    given = _forms(str(answer["text"]), whitespace=whitespace, case=case)
    deadline = time.monotonic() + ANSWER_PATTERNS_BUDGET_S
    for accepted in content.get("answers", []):
        if _matches(given, accepted, whitespace=whitespace, case=case, deadline=deadline):
            text = str(accepted.get("feedback", ""))
            return Verdict(clamp(float(accepted.get("fraction", 1.0))), {"answer": text})
    return Verdict(0.0, {})

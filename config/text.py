"""The rules for text a client sends.

Any text: no NUL character and no lone surrogate. PostgreSQL stores neither in text or
JSON columns, and a lone surrogate cannot be encoded as UTF-8, so either would fail later
(a 500 on save, or on every read after). The JSON parser applies this to every string of
every body, keys included.

A field's own text: one line or several (text_problem), applied by the API's text fields
(config/fields.py), the pages' forms (validate_one_line) and the bank file checker; text
that must be stored whatever it holds (an LMS's names) is cleaned to it (one_line_cleaned).
"""

import codecs
import re
from typing import Any

from django.core.exceptions import ValidationError

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
TEXT_MESSAGE = "Text may not contain NUL characters or unpaired surrogates."
KEY_MESSAGE = "Keys may not contain NUL characters or unpaired surrogates."


def is_text_encoding(name: str) -> bool:
    """Whether `name` is a codec that turns bytes into text. Python's codec registry also
    holds bytes-to-bytes and text-to-text ones (base64, hex, zip, rot13), which
    `bytes.decode` refuses with a LookupError (unless the bytes are empty): CodecInfo's
    `_is_text_encoding` flag is what it checks."""
    try:
        info = codecs.lookup(name)
    except LookupError:
        return False
    return bool(getattr(info, "_is_text_encoding", True))


def is_storable(text: str) -> bool:
    """True when the text holds no NUL and no unpaired surrogate."""
    return _UNSTORABLE.search(text) is None


def _child(path: str, key: object) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def unstorable_text(data: Any) -> dict[str, list[str]]:
    """Every place in parsed JSON with unstorable text, as {field path: [message]}
    (a bad key is reported at its object, so the reply never repeats the bad text)."""
    problems: dict[str, list[str]] = {}
    pending: list[tuple[str, Any]] = [("", data)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, str) and not is_storable(value):
            problems[path or "non_field_errors"] = [TEXT_MESSAGE]
        elif isinstance(value, dict):
            if not all(is_storable(key) for key in value):
                problems[path or "non_field_errors"] = [KEY_MESSAGE]
            pending.extend((_child(path, k), v) for k, v in value.items() if is_storable(k))
        elif isinstance(value, list):
            pending.extend((_child(path, i), v) for i, v in enumerate(value))
    return problems


# A one-line field (a title, a name, a slug, a code) is shown inline: in lists, headings,
# CSV exports and e-mail subjects. It takes no control character, no line break of any kind
# and no bidi embedding, override or isolate (U+202A-U+202E, U+2066-U+2069), which would
# reorder what is shown after it. Multi-line text (descriptions, reasons, prompts) keeps tab,
# newline, carriage return and bidi formatting, which right-to-left prose uses; any other
# control character shows as nothing on a page, and XML (Moodle, QTI) cannot hold C0 ones.
_BIDI = "\u202a-\u202e\u2066-\u2069"
ONE_LINE_BANNED = f"\x00-\x1f\x7f-\x9f\u2028\u2029{_BIDI}"
_MULTI_LINE_BANNED = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
_NOT_IN_ONE_LINE = re.compile(f"[{ONE_LINE_BANNED}]")
_NOT_IN_MULTI_LINE = re.compile(f"[{_MULTI_LINE_BANNED}]")
ONE_LINE_RULE = "a one-line field takes no control characters, line breaks or bidi formatting"
MULTI_LINE_RULE = "text takes no control characters but tab, newline and carriage return"


def schema_pattern(*, one_line: bool) -> str:
    """The rule as an OpenAPI `pattern`: text with none of the characters it refuses (a
    little stricter than text_problem, which trims blank space around one-line text)."""
    return f"^[^{ONE_LINE_BANNED if one_line else _MULTI_LINE_BANNED}]*$"


def _kind(character: str) -> str:
    if character in "\n\r\u2028\u2029":
        return "a line break"
    if re.fullmatch(f"[{_BIDI}]", character):
        return "a bidi formatting character"
    return "a control character"


def text_problem(text: str, *, one_line: bool) -> str | None:
    """Why `text` cannot be taken, naming the first character it may not hold and where
    (counted from 1); None when it can. Blank space around one-line text is not a problem:
    it is trimmed before the text is stored."""
    if one_line:
        start = len(text) - len(text.lstrip())
        found = _NOT_IN_ONE_LINE.search(text, start, start + len(text.strip()))
    else:
        found = _NOT_IN_MULTI_LINE.search(text)
    if found is None:
        return None
    character = found.group()
    rule = ONE_LINE_RULE if one_line else MULTI_LINE_RULE
    where = found.start() + 1
    return f"holds {_kind(character)} (U+{ord(character):04X}) at character {where}; {rule}"


_SPACING = re.compile("[\t-\r\x85\u2028\u2029]+")  # tabs and line breaks of any kind


def one_line_cleaned(text: str, *, max_length: int) -> str:
    """`text` made to keep the one-line rule, for text we store but may not refuse (an
    LMS's display name): tabs and line breaks become spaces, other characters the rule forbids are
    dropped, blank space around it is trimmed, and it is cut to `max_length`."""
    kept = _NOT_IN_ONE_LINE.sub("", _SPACING.sub(" ", text))
    return kept.strip()[:max_length].rstrip()


def one_line_dropped(text: str) -> list[str]:
    """The characters `one_line_cleaned` drops from `text`, each once, in order (tabs and line
    breaks, which become spaces, are not among them)."""
    return list(dict.fromkeys(_NOT_IN_ONE_LINE.findall(_SPACING.sub(" ", text))))


def sentence(problem: str) -> str:
    """A text_problem as a message of its own."""
    return f"{problem[0].upper()}{problem[1:]}."


def validate_one_line(value: str) -> None:
    """The one-line rule as a Django validator, for the pages' form fields."""
    problem = text_problem(value, one_line=True)
    if problem is not None:
        raise ValidationError(sentence(problem), code="not_one_line")

"""The one rule for text a client sends: no NUL character and no lone surrogate.

PostgreSQL stores neither in text or JSON columns, and a lone surrogate cannot be
encoded as UTF-8, so either would fail later (a 500 on save, or on every read after).
The JSON parser applies this to every string of every body, keys included.
"""

import re
from typing import Any

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
TEXT_MESSAGE = "Text may not contain NUL characters or unpaired surrogates."
KEY_MESSAGE = "Keys may not contain NUL characters or unpaired surrogates."


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

"""Input bounds the database enforces, checked first so that a value out of range is a 400
instead of an error from PostgreSQL or SQLite."""

import re
from typing import Any

from rest_framework import serializers

# The largest value of a bigint column (every id and counter here), and of SQLite's INTEGER.
BIGINT_MAX = 2**63 - 1
ID_SCHEMA: dict[str, Any] = {"type": "integer", "minimum": 0, "maximum": BIGINT_MAX}
ID_DIGITS = re.compile(r"[0-9]{1,19}")


def id_from_text(text: str) -> int | None:
    """The id that `text` spells in ASCII digits (str.isdigit also takes "²", which int()
    refuses), within BIGINT_MAX; None for anything else."""
    if not ID_DIGITS.fullmatch(text):
        return None
    number = int(text)
    return number if number <= BIGINT_MAX else None


class BoundedIntegerField(serializers.IntegerField):
    """A whole number from `min_value` (default 0) to BIGINT_MAX, documented with both."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 0)
        kwargs.setdefault("max_value", BIGINT_MAX)
        super().__init__(**kwargs)


class TextOnlyField(serializers.CharField):
    """Text, and only text: DRF's CharField turns `5` or `true` into "5" and "True"."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))

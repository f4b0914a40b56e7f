"""Input bounds the database enforces, checked first so that a value out of range is a 400
instead of an error from PostgreSQL or SQLite."""

import re
from typing import Any, Literal

from rest_framework import serializers

from config.text import sentence, text_problem

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


# What a text field takes (config/text.py): one line (titles, names, codes: the default),
# several (descriptions, reasons, notes), or anything storable exactly as sent (code,
# passwords, where a form feed or a tab is the client's business).
TextKind = Literal["one_line", "multi_line", "verbatim"]


class TextOnlyField(serializers.CharField):
    """Text, and only text: DRF's CharField turns `5` or `true` into "5" and "True". Input
    is held to `kind`'s rule, refused with the offending character and its position."""

    default_error_messages = {"not_text": "Not a valid string."}

    def __init__(self, *args: Any, kind: TextKind = "one_line", **kwargs: Any) -> None:
        self.kind = kind
        super().__init__(*args, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_text")
        value = str(super().to_internal_value(data))
        if self.kind != "verbatim":
            problem = text_problem(data, one_line=self.kind == "one_line")
            if problem is not None:
                raise serializers.ValidationError(sentence(problem), code="not_" + self.kind)
        return value


# DRF's other fields convert too: FloatField takes `true` as 1.0 (a 100% penalty per attempt),
# BooleanField takes "yes", 1 and "off", IntegerField and SlugField take "5" and 987. A JSON body
# has its own types, so the API's body serializers take each value only in its own type. (Query
# parameters are text; their serializers keep DRF's fields.)


def _is_number(data: Any) -> bool:
    return isinstance(data, (int, float)) and not isinstance(data, bool)


class IntegerOnlyField(BoundedIntegerField):
    """A whole JSON number (5 or 5.0, never "5" or true), from min_value to max_value."""

    def to_internal_value(self, data: Any) -> int:
        if not _is_number(data):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class NumberOnlyField(serializers.FloatField):
    """A JSON number, never "0.5" or true."""

    def to_internal_value(self, data: Any) -> float:
        if not _is_number(data):
            self.fail("invalid")
        return float(super().to_internal_value(data))


class BooleanOnlyField(serializers.BooleanField):
    """true or false, never "yes", 1 or "off"."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class SlugOnlyField(TextOnlyField, serializers.SlugField):
    """A slug given as text, never the number 987."""


class RegexOnlyField(TextOnlyField, serializers.RegexField):
    """Text matching the pattern, never a number that would match once written out."""


class DurationOnlyField(serializers.DurationField):
    """A duration written as text ("00:10:00", "P0DT00H10M00S"), never a bare number, which
    DRF would read as seconds though the schema says text."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid", format="[DD] [HH:[MM:]]ss[.uuuuuu]")
        return super().to_internal_value(data)

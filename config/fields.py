"""Input bounds the database enforces, checked first so that a value out of range is a 400
instead of an error from PostgreSQL or SQLite."""

import re
from datetime import timedelta
from typing import Any, Literal

from django.utils.dateparse import parse_duration
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


# The durations a client may send, each with an example. ISO 8601 is taken in any case and
# with weeks; never with years or months, whose length varies. Django's own forms follow.
_NUMBER = r"\d+(?:[.,]\d+)?"
_ISO_DURATION = re.compile(
    rf"(?P<sign>[-+]?)P(?=[\dT])(?:(?P<weeks>{_NUMBER})W)?(?:(?P<days>{_NUMBER})D)?"
    rf"(?:T(?=\d)(?:(?P<hours>{_NUMBER})H)?(?:(?P<minutes>{_NUMBER})M)?"
    rf"(?:(?P<seconds>{_NUMBER})S)?)?",
    re.IGNORECASE,
)
DURATION_FORMS = (
    "ISO 8601 in weeks, days, hours, minutes and seconds (P1W, P1DT2H, PT1H30M, PT45S, "
    "pt10m; no years or months)",
    "[DD ][[HH:]MM:]ss[.uuuuuu] (00:10:00, 1 02:00:00, 10:00 for ten minutes)",
    "days and a time (3 days 04:05:06)",
)
DURATION_HELP = (
    "A duration as text, one of: " + "; ".join(DURATION_FORMS) + ". Read back as "
    "[DD ]HH:MM:SS[.uuuuuu]."
)


def _iso_duration(text: str) -> timedelta | None:
    """The ISO 8601 duration `text` spells; None when it spells none. OverflowError when
    it is past what a timedelta holds."""
    match = _ISO_DURATION.fullmatch(text)
    if match is None:
        return None
    parts = {
        unit: float(number.replace(",", "."))
        for unit, number in match.groupdict().items()
        if unit != "sign" and number is not None
    }
    duration = timedelta(**parts)
    return -duration if match["sign"] == "-" else duration


class DurationOnlyField(serializers.DurationField):
    """A duration written as text in one of DURATION_FORMS, never a bare number, which DRF
    would read as seconds though the schema says text."""

    default_error_messages = {
        "invalid": "Not a duration. Send text in one of these forms: "
        + "; ".join(DURATION_FORMS)
        + "."
    }

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("help_text", DURATION_HELP)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> timedelta:
        if not isinstance(data, str):
            self.fail("invalid")
        text = data.strip()
        try:
            # Text that starts as ISO 8601 is read as nothing else: Django's parser takes a
            # bare "P" as zero.
            is_iso = re.match("[-+]?P", text, re.IGNORECASE) is not None
            duration = _iso_duration(text) if is_iso else parse_duration(text)
        except OverflowError:
            self.fail("overflow", min_days=timedelta.min.days, max_days=timedelta.max.days)
        if duration is None:
            self.fail("invalid")
        return duration

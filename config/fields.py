"""Input bounds the database enforces, checked first so that a value out of range is a 400
instead of an error from PostgreSQL or SQLite."""

import re
from datetime import timedelta
from typing import Any, Literal

from django.utils.dateparse import parse_duration
from drf_spectacular.utils import extend_schema_field
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
# with weeks; never with years or months, whose length varies. Django's own forms follow. No
# form takes a sign: no duration here may be negative. One pattern says them all, for the
# check and for the schema alike, so it keeps to what both Python and ECMAScript read the same
# way: ASCII digits and no lookarounds.
_N = "[0-9]+(?:[.,][0-9]+)?"
_ISO_DATE = f"(?:{_N}[Ww](?:{_N}[Dd])?|{_N}[Dd])"
_ISO_TIME = f"[Tt](?:{_N}[Hh](?:{_N}[Mm])?(?:{_N}[Ss])?|{_N}[Mm](?:{_N}[Ss])?|{_N}[Ss])"
_ISO = f"[Pp](?:{_ISO_DATE}(?:{_ISO_TIME})?|{_ISO_TIME})"
_CLOCK = "(?:[0-9]+ (?:days?, )?)?(?:[0-9]+:){0,2}[0-9]+(?:[.,][0-9]{1,6})?"
_DAYS_AND_TIME = "[0-9]+ days?(?: [0-9]+:[0-9]{2}:[0-9]{2}(?:[.][0-9]{1,6})?)?"
DURATION_PATTERN = f"^ *(?:{_ISO}|{_CLOCK}|{_DAYS_AND_TIME}) *$"
_ISO_PART = re.compile(f"({_N})([WwDdHhMmSs])")
_ISO_UNITS = {"w": "weeks", "d": "days", "h": "hours", "m": "minutes", "s": "seconds"}
DURATION_FORMS = (
    "ISO 8601 in weeks, days, hours, minutes and seconds (P1W, P1DT2H, PT1H30M, PT45S, "
    "pt10m; no years or months)",
    "[DD ][[HH:]MM:]ss[.uuuuuu] (00:10:00, 1 02:00:00, 10:00 for ten minutes)",
    "days, and a time or not (3 days 04:05:06, 1 day)",
)
DURATION_HELP = (
    "A duration as text, one of: " + "; ".join(DURATION_FORMS) + ". Read back as "
    "[DD ]HH:MM:SS[.uuuuuu]."
)


def _iso_duration(text: str) -> timedelta:
    """The duration an ISO 8601 text that matched DURATION_PATTERN spells (there an M is
    always minutes). OverflowError when it is past what a timedelta holds."""
    parts = {
        _ISO_UNITS[unit.lower()]: float(number.replace(",", "."))
        for number, unit in _ISO_PART.findall(text)
    }
    return timedelta(**parts)


def _in_words(duration: timedelta) -> str:
    seconds = int(duration.total_seconds())
    units = (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))
    words = []
    for name, size in units:
        count, seconds = divmod(seconds, size)
        if count:
            words.append(f"{count} {name}{'s' if count > 1 else ''}")
    return ", ".join(words) or "0 seconds"


def _bounds(low: timedelta | None, high: timedelta | None) -> str:
    if high is None:
        return ""
    if low:
        return f" From {_in_words(low)} to {_in_words(high)}."
    return f" At most {_in_words(high)}."


@extend_schema_field({"type": "string", "pattern": DURATION_PATTERN})
class DurationOnlyField(serializers.DurationField):
    """A duration written as text in one of DURATION_FORMS (DURATION_PATTERN), never a bare
    number, which DRF would read as seconds though the schema says text; its bounds are
    said in its description, as no pattern can say them."""

    default_error_messages = {
        "invalid": "Not a duration. Send text in one of these forms: "
        + "; ".join(DURATION_FORMS)
        + "."
    }

    def __init__(self, **kwargs: Any) -> None:
        bounds = _bounds(kwargs.get("min_value"), kwargs.get("max_value"))
        kwargs.setdefault("help_text", DURATION_HELP + bounds)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> timedelta:
        if not isinstance(data, str) or not re.fullmatch(DURATION_PATTERN, data):
            self.fail("invalid")
        text = data.strip(" ")
        try:
            # Django's parser reads the clock forms; ISO 8601 is read here, with weeks.
            is_iso = text[:1] in "Pp"
            duration = _iso_duration(text) if is_iso else parse_duration(text)
        except OverflowError:
            self.fail("overflow", min_days=timedelta.min.days, max_days=timedelta.max.days)
        if duration is None:
            self.fail("invalid")
        return duration

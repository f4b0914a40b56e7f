"""Small typed checks that collect every problem instead of stopping at the first."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from config.text import text_problem
from quizbank.bankfiles.source import FieldPath, Issue

_MISSING = object()


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _choices(options: Iterable[str]) -> str:
    return ", ".join(options)


class Checker:
    """Collects issues; each `want_*` returns the value when it is valid, else None."""

    def __init__(self) -> None:
        self.issues: list[Issue] = []

    def error(self, path: FieldPath, message: str) -> None:
        self.issues.append(Issue(path, message))

    def mapping(self, value: object, path: FieldPath, what: str) -> dict[str, Any] | None:
        if isinstance(value, dict):
            return value
        self.error(path, f"{what} must be a mapping of keys to values")
        return None

    def keys(self, data: Mapping[Any, Any], path: FieldPath, allowed: Iterable[str]) -> None:
        allowed = tuple(allowed)
        for key in data:
            if key not in allowed:
                self.error((*path, str(key)), f"unknown key; allowed here: {_choices(allowed)}")

    def required(self, data: Mapping[str, Any], key: str, path: FieldPath) -> Any:
        value = data.get(key, _MISSING)
        if value is _MISSING or value is None:
            self.error((*path, key), "is required")
            return None
        return value

    def text(
        self,
        data: Mapping[str, Any],
        key: str,
        path: FieldPath,
        *,
        required: bool = False,
        max_length: int | None = None,
        one_line: bool = False,
    ) -> str | None:
        """The text at `key`, held to the one-line or multi-line rule (config/text.py)."""
        if key not in data and not required:
            return None
        value = self.required(data, key, path)
        if value is None:
            return None
        if not isinstance(value, str):
            self.error((*path, key), "must be text")
            return None
        problem = text_problem(value, one_line=one_line)
        if problem is not None:
            self.error((*path, key), problem)
        if required and not value.strip():
            self.error((*path, key), "must not be empty")
        if max_length is not None and len(value.strip()) > max_length:
            self.error((*path, key), f"is longer than {max_length} characters")
        return value

    def boolean(self, data: Mapping[str, Any], key: str, path: FieldPath) -> None:
        if key in data and not isinstance(data[key], bool):
            self.error((*path, key), "must be true or false")

    def choice(
        self, data: Mapping[str, Any], key: str, path: FieldPath, options: Iterable[str]
    ) -> None:
        options = tuple(options)
        if key in data and data[key] not in options:
            self.error((*path, key), f"must be one of: {_choices(options)}")

    def number(
        self,
        data: Mapping[str, Any],
        key: str,
        path: FieldPath,
        *,
        minimum: float | None = None,
        maximum: float | None = None,
        positive: bool = False,
        integer: bool = False,
        required: bool = False,
        largest: float | None = None,
    ) -> float | None:
        if key not in data and not required:
            return None
        value = self.required(data, key, path)
        if value is None:
            return None
        kind = "a whole number" if integer else "a number"
        if not is_number(value) or (integer and not isinstance(value, int)):
            self.error((*path, key), f"must be {kind}")
            return None
        try:
            number = float(value)
        except OverflowError:  # an integer past any float (hundreds of digits)
            self.error((*path, key), f"must be {kind} of a usable size")
            return None
        if positive and number <= 0:
            self.error((*path, key), f"must be {kind} above 0")
        elif minimum is not None and number < minimum:
            self.error((*path, key), f"must be {kind} >= {minimum:g}")
        elif maximum is not None and number > maximum:
            self.error((*path, key), f"must be {kind} <= {maximum:g}")
        elif largest is not None and abs(number) > largest:
            self.error((*path, key), f"must be at most {largest:g} in size ({number:g} given)")
        return number

    def items(self, data: Mapping[str, Any], key: str, path: FieldPath) -> list[Any] | None:
        """A required, non-empty list."""
        value = self.required(data, key, path)
        if value is None:
            return None
        if not isinstance(value, list) or not value:
            self.error((*path, key), "must be a non-empty list")
            return None
        return value

    def text_list(self, data: Mapping[str, Any], key: str, path: FieldPath) -> list[Any]:
        value = data.get(key, [])
        if not isinstance(value, list):
            self.error((*path, key), "must be a list")
            return []
        for index, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                self.error((*path, key, index), "must be non-empty text")
        return value

    def plain_values(self, value: object, path: FieldPath) -> None:
        """Reject what JSON cannot hold: dates, binary, NaN and infinities."""
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    self.error((*path, str(key)), "keys must be text")
                self.plain_values(item, (*path, str(key)))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                self.plain_values(item, (*path, index))
        elif isinstance(value, float) and not math.isfinite(value):
            self.error(path, "must be a finite number")
        elif value is not None and not isinstance(value, str | int | float | bool):
            kind = type(value).__name__
            self.error(path, f"YAML read this as {kind}; put it in quotes to make it text")

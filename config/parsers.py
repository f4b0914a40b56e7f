"""The API's one JSON parser: bounded size, bounded nesting, finite numbers, storable text.

Every API view parses with it (DEFAULT_PARSER_CLASSES), the sign-in view included, so
no view, serializer or service ever sees a body that breaks these limits.
"""

import json
import math
import re
import sys
from collections.abc import Mapping
from typing import IO, Any, NoReturn

from django.conf import settings
from django.utils.http import parse_header_parameters
from rest_framework import status
from rest_framework.exceptions import (
    APIException,
    ParseError,
    UnsupportedMediaType,
    ValidationError,
)
from rest_framework.parsers import BaseParser

from config.text import is_text_encoding, unstorable_text

# Far deeper than any body of this API (an answer is at most a few levels); far shallower
# than the recursion that json, the serializers and the renderer would hit.
MAX_DEPTH = 32
_STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKETS = re.compile(rb"[\[\]{}]")


class RequestTooLarge(APIException):
    """A body over GRADING_MAX_REQUEST_BYTES (or over Django's own upload limit)."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "request_too_large"


def nesting_depth(body: bytes, stop_after: int = MAX_DEPTH) -> int:
    """How deeply arrays and objects nest in a JSON text, counted outside strings and
    without recursion; counting stops once it passes `stop_after`."""
    depth = deepest = 0
    for bracket in _BRACKETS.finditer(_STRINGS.sub(b'""', body)):
        depth += 1 if bracket.group() in (b"[", b"{") else -1
        deepest = max(deepest, depth)
        if deepest > stop_after:
            break
    return deepest


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]} is out of range")
    return value


# Python refuses to read a longer integer (4,300 digits unless configured; 0: no limit), with a
# hint meant for programmers; no number the API takes comes near it.
MAX_INTEGER_DIGITS = sys.get_int_max_str_digits()


def _whole(text: str) -> int:
    digits = len(text.lstrip("-"))
    if MAX_INTEGER_DIGITS and digits > MAX_INTEGER_DIGITS:
        raise ValueError(
            f"the number {text[:20]}... has {digits:,} digits; "
            f"at most {MAX_INTEGER_DIGITS:,} are read"
        )
    return int(text)


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def _charset(media_type: str | None) -> str:
    """The body's charset: the Content-Type's own, or UTF-8 (JSON's) when it names none;
    415 for a charset that cannot decode text (unknown, or a codec such as base64)."""
    charset = parse_header_parameters(media_type or "")[1].get("charset")
    if not charset:  # none named, or `charset=` left empty
        return str(settings.DEFAULT_CHARSET)
    if not is_text_encoding(charset):
        raise UnsupportedMediaType(
            media_type or "", detail=f"The charset {charset[:40]!r} cannot decode a JSON body."
        )
    return charset


def _read_capped(stream: IO[Any], request: Any) -> bytes:
    limit = int(settings.GRADING_MAX_REQUEST_BYTES)
    length = int(request.META.get("CONTENT_LENGTH") or 0) if request is not None else 0
    if length > limit:
        raise RequestTooLarge(f"The body is {length} bytes; the limit is {limit} bytes.")
    body: bytes = stream.read(limit + 1)
    if len(body) > limit:
        raise RequestTooLarge(f"The body is over the limit of {limit} bytes.")
    return body


class SafeJSONParser(BaseParser):
    """JSON with a size cap (GRADING_MAX_REQUEST_BYTES, 413), at most MAX_DEPTH levels,
    no NaN or infinite numbers (400 parse_error) and storable text (400 naming the field).

    Not a subclass of DRF's JSONParser, which DRF hands the whole body already read into
    memory: this one reads the stream itself and stops one byte past the cap."""

    media_type = "application/json"

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        context = parser_context or {}
        encoding = _charset(media_type)
        body = _read_capped(stream, context.get("request"))
        if nesting_depth(body) > MAX_DEPTH:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels.")
        try:
            text = body.decode(encoding)
            data = json.loads(
                text, parse_float=_finite, parse_int=_whole, parse_constant=_refuse_constant
            )
        except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError included
            raise ParseError(f"JSON parse error - {exc}") from None
        problems = unstorable_text(data)
        if problems:
            raise ValidationError(problems)
        return data

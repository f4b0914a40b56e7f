"""A JSON parser that refuses oversized bodies with 413 before reading them."""

import io
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException
from rest_framework.parsers import JSONParser


class RequestTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "request_too_large"


class CappedJSONParser(JSONParser):
    """JSON with a size cap (GRADING_MAX_REQUEST_BYTES); malformed JSON is DRF's 400."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        limit = int(settings.GRADING_MAX_REQUEST_BYTES)
        request = (parser_context or {}).get("request")
        length = int(request.META.get("CONTENT_LENGTH") or 0) if request is not None else 0
        if length > limit:
            raise RequestTooLarge(f"The body is {length} bytes; the limit is {limit} bytes.")
        body = stream.read(limit + 1)
        if len(body) > limit:
            raise RequestTooLarge(f"The body is over the limit of {limit} bytes.")
        return super().parse(io.BytesIO(body), media_type, parser_context)

"""One JSON shape for every API error: {"error": {"code", "message", "fields"}}.

Services raise `DomainError` subclasses with a stable code; this handler turns
them, DRF's own exceptions and Django's 404/permission errors into that shape.
"""

import logging
from typing import Any, ClassVar

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404
from kombu.exceptions import ChannelError, KombuError
from kombu.exceptions import ConnectionError as BrokerConnectionError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from config.parsers import RequestTooLarge


class DomainError(Exception):
    """A rule of the domain was broken; `code` is stable, `message` is for people."""

    code: ClassVar[str] = "invalid"
    status_code: ClassVar[int] = status.HTTP_400_BAD_REQUEST
    # Sent as Retry-After when set; a subclass sets it, or a service on the instance it raises.
    retry_after_s: int | None = None

    def __init__(self, message: str, *, fields: dict[str, list[str]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields or {}


def error_body(code: str, message: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def _flatten_fields(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    if isinstance(detail, dict):
        flat: dict[str, list[str]] = {}
        for key, value in detail.items():
            # A ListField's errors come keyed by the item's index: `items[2]`, as lists are.
            if isinstance(key, int):
                name = f"{prefix}[{key}]"
            else:
                name = f"{prefix}.{key}" if prefix else str(key)
            flat.update(_flatten_fields(value, name))
        return flat
    if isinstance(detail, list) and detail and isinstance(detail[0], (dict, list)):
        flat = {}
        for index, value in enumerate(detail):
            flat.update(_flatten_fields(value, f"{prefix}[{index}]"))
        return flat
    messages = detail if isinstance(detail, list) else [detail]
    return {prefix or "non_field_errors": [str(message) for message in messages]}


def _drf_error(exc: exceptions.APIException) -> tuple[str, str, dict[str, list[str]]]:
    if isinstance(exc, exceptions.ValidationError):
        return "invalid", "The request has invalid fields.", _flatten_fields(exc.detail)
    code = exc.get_codes()
    code_text = code if isinstance(code, str) else exc.default_code
    return str(code_text), str(exc.detail), {}


logger = logging.getLogger(__name__)

# A database that is restarting, unreachable or read-only: nothing was written, try again.
RETRY_AFTER_S = 5
_READ_ONLY_SQLSTATE = "25006"  # read_only_sql_transaction


DATABASE_UNAVAILABLE = "The database cannot answer just now and nothing was changed; try again."


def database_unavailable_code(exc: BaseException) -> str | None:
    """ "database_read_only" or "database_unavailable" for an error of a database that cannot
    take the request now (restarting, locked, read-only: nothing was written), else None. The
    API's handler and the pages' middleware (config.http_errors) both answer it with a 503."""
    cause = exc.__cause__
    read_only = getattr(cause, "sqlstate", None) == _READ_ONLY_SQLSTATE or "readonly" in str(exc)
    if not (
        isinstance(exc, OperationalError | InterfaceError)
        or (isinstance(exc, DatabaseError) and read_only)
    ):
        return None
    return "database_read_only" if read_only else "database_unavailable"


def database_unavailable(exc: Exception) -> Response | None:
    """503 with Retry-After for a database that cannot take the request now, else None."""
    code = database_unavailable_code(exc)
    if code is None:
        return None
    logger.warning("answered 503 %s: %s", code, exc)
    body = error_body(code, DATABASE_UNAVAILABLE)
    response = Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE)
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


# What sending a task raises when the broker cannot take it: Redis down or restarting (after
# Celery's own retries), or the filesystem broker's folder full.
BROKER_ERRORS = (KombuError, ChannelError, BrokerConnectionError)
BROKER_UNAVAILABLE = "The job queue cannot take work just now and nothing was queued; try again."


def broker_unavailable(exc: Exception) -> Response | None:
    """503 with Retry-After when a job could not be queued (BROKER_ERRORS); else None."""
    if not isinstance(exc, BROKER_ERRORS):
        return None
    logger.warning("answered 503 broker_unavailable: %s", exc)
    body = error_body("broker_unavailable", BROKER_UNAVAILABLE)
    response = Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE)
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF exception handler that renders every error in the one Vivabank shape."""
    for unavailable in (database_unavailable(exc), broker_unavailable(exc)):
        if unavailable is not None:
            return unavailable
    if isinstance(exc, DomainError):
        body = error_body(exc.code, exc.message, exc.fields)
        domain = Response(body, status=exc.status_code)
        if exc.retry_after_s is not None:
            domain["Retry-After"] = str(exc.retry_after_s)
        return domain
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, RequestDataTooBig):
        exc = RequestTooLarge()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    code, message, fields = _drf_error(exc)
    response.data = error_body(code, message, fields)
    return response

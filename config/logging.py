"""Structured logs: one JSON object per line, carrying the request id, attempt id and job id.

The ids live in context variables. `RequestIdMiddleware` sets the request id (the client's
`X-Request-ID` when it is short and printable, else a fresh one, echoed in the response) and
the attempt id of `/api/attempts/<id>/...`; Celery's task signals set the job id. Every
record logged meanwhile carries them, whichever module logs it.
"""

import json
import logging
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from celery.signals import task_postrun, task_prerun
from django.http import HttpRequest, HttpResponse

REQUEST_ID: ContextVar[str] = ContextVar("request_id", default="")
ATTEMPT_ID: ContextVar[int | None] = ContextVar("attempt_id", default=None)
JOB_ID: ContextVar[str] = ContextVar("job_id", default="")
REQUEST_ID_HEADER = "X-Request-ID"
_MAX_ID_LENGTH = 64
# The attributes every LogRecord has: anything else was passed as `extra` and is logged too.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class ContextFilter(logging.Filter):
    """Copy the current request, attempt and job ids onto each record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        record.attempt_id = ATTEMPT_ID.get()
        record.job_id = JOB_ID.get()
        return True


class ClientErrorFilter(logging.Filter):
    """A 4xx answer is the client's doing (a refused permission, a missing page): its
    record keeps the status and path but not the traceback, which says nothing about us."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, the ids and any extras."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and value not in (None, ""):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def logging_config(*, level: str, json_format: bool) -> dict[str, Any]:
    """The LOGGING setting: every record to stderr, as JSON unless `json_format` is off."""
    plain = "%(asctime)s %(levelname)s %(name)s [req=%(request_id)s job=%(job_id)s] %(message)s"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "context": {"()": ContextFilter},
            "client_errors": {"()": ClientErrorFilter},
        },
        "formatters": {"json": {"()": JsonFormatter}, "plain": {"format": plain}},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "filters": ["context", "client_errors"],
                "formatter": "json" if json_format else "plain",
            }
        },
        "root": {"handlers": ["console"], "level": level},
        # Django's own default (DEBUG on) gives its loggers a second console handler that
        # prints every 4xx with its traceback: they go through the root's handler only.
        "loggers": {"django": {"handlers": [], "level": level, "propagate": True}},
    }


def _client_request_id(request: HttpRequest) -> str:
    given = str(request.headers.get(REQUEST_ID_HEADER, ""))
    if 0 < len(given) <= _MAX_ID_LENGTH and given.isascii() and given.isprintable():
        return given
    return uuid.uuid4().hex


class RequestIdMiddleware:
    """Give each request an id (logged with every record, echoed as `X-Request-ID`)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # Set afresh by each request and left set afterwards: Django logs a 4xx or 5xx
        # ("Not Found: ...") only once the middleware has returned.
        REQUEST_ID.set(_client_request_id(request))
        ATTEMPT_ID.set(None)
        response = self.get_response(request)
        response[REQUEST_ID_HEADER] = REQUEST_ID.get()
        return response

    def process_view(
        self, request: HttpRequest, view: object, args: object, kwargs: dict[str, Any]
    ) -> None:
        attempt_id = kwargs.get("attempt_id")
        if isinstance(attempt_id, int):
            ATTEMPT_ID.set(attempt_id)


def _job_id_of(task_id: str, args: Any) -> str:
    """A grading callback's job is the job its result names; any other task's is its own id."""
    first = args[0] if isinstance(args, list | tuple) and args else None
    if isinstance(first, dict) and isinstance(first.get("job_id"), str):
        return str(first["job_id"])
    return task_id


@task_prerun.connect
def _enter_task(task_id: str = "", args: Any = None, **_: Any) -> None:
    JOB_ID.set(_job_id_of(task_id, args))


@task_postrun.connect
def _leave_task(**_: Any) -> None:
    JOB_ID.set("")

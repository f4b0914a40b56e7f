"""Every response under /api/ (and the quiz page's JSON endpoints under /code-runs/) is
JSON in the one error shape, whatever produced it.

DRF views render their errors through `config.exceptions.api_exception_handler`. What
happens outside them (no URL matched, an unhandled exception, Django refusing a body,
a debug page) reaches the client through the handlers and the middleware below; a page
gets the site's own error pages (templates/4xx.html).
"""

import logging
from collections.abc import Callable
from http import HTTPStatus

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.middleware.common import CommonMiddleware
from django.shortcuts import render
from django.views import defaults

from config.exceptions import (
    DATABASE_UNAVAILABLE,
    RETRY_AFTER_S,
    database_unavailable_code,
    error_body,
)

API_PREFIX = "/api/"
JSON_PREFIXES = (API_PREFIX, "/code-runs/")
# The code and message of an error that no view described (codes match DRF's).
_DEFAULTS: dict[int, tuple[str, str]] = {
    400: ("bad_request", "The request could not be read."),
    401: ("not_authenticated", "Authentication credentials were not provided."),
    403: ("permission_denied", "You do not have permission to perform this action."),
    404: ("not_found", "Not found."),
    405: ("method_not_allowed", "Method not allowed."),
    413: ("request_too_large", "The request body is too large."),
    500: ("server_error", "The server failed to answer; the error has been logged."),
}
logger = logging.getLogger(__name__)
# Headers of the original response that a client still needs from the JSON one.
_KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")


def is_api_path(request: HttpRequest) -> bool:
    return request.path.startswith(JSON_PREFIXES) or request.path == API_PREFIX.rstrip("/")


def api_error_response(status: int) -> JsonResponse:
    """A JSON error with the status's usual code and message."""
    phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Error"
    code, message = _DEFAULTS.get(status, (phrase.lower().replace(" ", "_"), phrase + "."))
    return JsonResponse(error_body(code, message), status=status)


def _is_json(response: HttpResponse) -> bool:
    return str(response.get("Content-Type", "")).startswith("application/json")


class ApiErrorMiddleware:
    """Outermost middleware: an error under /api/ that is not JSON (Django's pages, the
    debug pages of DEBUG=true) is replaced by the one error shape with the same status."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 405 and not is_api_path(request) and not response.content:
            # A page asked with the wrong method (a link to a form's POST address).
            page = render(request, "405.html", status=405)
            page["Allow"] = response.get("Allow", "")
            return page
        if response.status_code == 404 and settings.DEBUG and not is_api_path(request):
            # DEBUG's own 404 lists every URL pattern; `make run` runs with DEBUG on, and a
            # newcomer who mistypes an address should meet the site's page.
            return page_not_found(request, Http404())
        if response.status_code < 400 or not is_api_path(request) or _is_json(response):
            return response
        replacement = api_error_response(response.status_code)
        for header in _KEPT_HEADERS:
            if header in response:
                replacement[header] = response[header]
        return replacement

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A page's write to a database that cannot take it now (a locked SQLite file under
        `make run`, a restarting PostgreSQL) is the API's retryable 503, not the 500 page."""
        code = database_unavailable_code(exception)
        if code is None:
            return None
        logger.warning("answered 503 %s: %s", code, exception)
        if is_api_path(request):
            response: HttpResponse = JsonResponse(
                error_body(code, DATABASE_UNAVAILABLE), status=503
            )
        else:
            response = render(request, "503.html", status=503)
        response["Retry-After"] = str(RETRY_AFTER_S)
        return response


# Only a read may be redirected: a client follows a 301 to a POST as a GET (the submit is
# lost), and with DEBUG on Django raises instead of redirecting a write (a 500).
_SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class SlashCommonMiddleware(CommonMiddleware):
    """Django's CommonMiddleware, except that a write to an address that exists only with a
    trailing slash is a 404 naming that address (JSON under /api/), never a redirect."""

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if (
            response.status_code == 404
            and request.method not in _SAFE_METHODS
            and self.should_redirect_with_slash(request)
        ):
            message = f"No {request.method} at {request.path}; its address is {request.path}/."
            if is_api_path(request):
                return JsonResponse(error_body("not_found", message), status=404)
            return page_not_found(request, Http404(message))
        return super().process_response(request, response)


# Django answers too many query parameters with a 400, but with DEBUG on (`make run`) its
# debug page reads them again, fails the same way, and the server answers a bare 500 text.
_TOO_MANY_FIELDS = (
    f"The query string has more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} parameters."
)
_NO_LENGTH = (
    "The body came without a Content-Length (Transfer-Encoding: chunked?), and a body sent "
    "so is never read here: send it with its Content-Length."
)


def _unmeasured_body(request: HttpRequest) -> bool:
    """A body announced by Transfer-Encoding with no Content-Length: Django reads a body by
    its Content-Length alone, so it would see none and the view would answer as if the
    client had sent nothing (a 400 "field required" for a body that was there)."""
    return "HTTP_TRANSFER_ENCODING" in request.META and not request.META.get("CONTENT_LENGTH")


class RequestSizeMiddleware:
    """A body declared over MAX_REQUEST_BODY_BYTES is a 413 before any of it is read, signed
    in or not: Django would first stream an upload of any size to a temporary file. Under
    /api/, a body of unknown length is a 411."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            request.GET  # noqa: B018  (parsed now: see _TOO_MANY_FIELDS)
        except TooManyFieldsSent as exc:
            if is_api_path(request):
                return JsonResponse(error_body("too_many_fields", _TOO_MANY_FIELDS), status=400)
            return bad_request(request, exc)
        if is_api_path(request) and _unmeasured_body(request):
            return JsonResponse(error_body("length_required", _NO_LENGTH), status=411)
        limit = int(settings.MAX_REQUEST_BODY_BYTES)
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0  # not a number: Django reads no body for it
        if declared <= limit:
            return self.get_response(request)
        message = f"The request body is {declared:,} bytes; {limit:,} is the most read."
        if is_api_path(request):
            return JsonResponse(error_body("request_too_large", message), status=413)
        return render(request, "413.html", {"message": message}, status=413)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api_path(request):
        return api_error_response(400)
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api_path(request):
        return api_error_response(403)
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api_path(request):
        return api_error_response(404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if is_api_path(request):
        return api_error_response(500)
    return defaults.server_error(request)

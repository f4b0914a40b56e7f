"""Sign-in throttling: failed sign-ins are counted per username and per client address
in the default cache (CACHE_URL: per process in development, shared in production).

Past SIGNIN_FAILURES_PER_USERNAME failures for a username, or SIGNIN_FAILURES_PER_ADDRESS
from one address, within SIGNIN_FAILURE_WINDOW_S, every sign-in with that username or
from that address is refused for SIGNIN_LOCKOUT_S, the right password included: a 429
with Retry-After, on the sign-in page, the API's token endpoint and the admin login alike.
"""

import contextlib
import hashlib
import math
import time
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle


def client_address(request: HttpRequest | Request) -> str:
    """REMOTE_ADDR, or with NUM_PROXIES proxies in front the address the outermost of them
    saw (as DRF's throttles identify a client)."""
    remote = str(request.META.get("REMOTE_ADDR", ""))
    proxies = int(api_settings.NUM_PROXIES or 0)
    forwarded = request.headers.get("x-forwarded-for")
    if proxies == 0 or not forwarded:
        return remote
    hops = forwarded.split(",")
    return hops[-min(proxies, len(hops))].strip()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _username_counter(username: str) -> tuple[str, int]:
    key = f"signin:username:{_digest(username.strip().casefold())}"
    return key, int(settings.SIGNIN_FAILURES_PER_USERNAME)


def _address_counter(address: str) -> tuple[str, int]:
    return f"signin:address:{_digest(address)}", int(settings.SIGNIN_FAILURES_PER_ADDRESS)


def _locked_for(key: str) -> int:
    return max(0, math.ceil(float(cache.get(f"{key}:locked", 0.0)) - time.time()))


def address_wait(address: str) -> int:
    """Seconds before any sign-in from this address may be tried; 0 when it may now."""
    return _locked_for(_address_counter(address)[0])


def signin_wait(*, username: str, address: str) -> int:
    """Seconds before this username may sign in from this address; 0 when it may now."""
    return max(address_wait(address), _locked_for(_username_counter(username)[0]))


def count_in_window(key: str, window_s: int) -> int:
    """Add one to the counter `key` in the default cache; the count within its window."""
    window = int(window_s)
    cache.add(key, 0, timeout=window)
    try:
        return int(cache.incr(key))
    except ValueError:  # the window ran out between add and incr
        cache.set(key, 1, timeout=window)
        return 1


def _counters(username: str, address: str) -> tuple[tuple[str, int], ...]:
    return _username_counter(username), _address_counter(address)


def _uncount(keys: list[str]) -> None:
    for key in keys:
        with contextlib.suppress(ValueError):  # its window ran out meanwhile
            cache.decr(key)


def signin_begin(*, username: str, address: str) -> int:
    """Seconds before this sign-in may be tried; 0 when it may go on, counted already.

    A sign-in counts as a failure before its password is checked: parallel guesses would
    otherwise all pass the lock check while none has failed yet. `signin_end` settles it.
    """
    seconds = signin_wait(username=username, address=address)
    if seconds:
        return seconds
    counted: list[str] = []
    for key, limit in _counters(username, address):
        counted.append(key)
        if count_in_window(key, settings.SIGNIN_FAILURE_WINDOW_S) > limit:
            _uncount(counted)  # as many sign-ins as the limit allows are being checked now
            return int(settings.SIGNIN_LOCKOUT_S)
    return 0


def signin_end(*, username: str, address: str, succeeded: bool) -> None:
    """Settle a sign-in `signin_begin` let through: a success is not a failure after all;
    a failure locks the username or the address once its count reached the limit."""
    if succeeded:
        _uncount([key for key, _ in _counters(username, address)])
        return
    lockout = int(settings.SIGNIN_LOCKOUT_S)
    for key, limit in _counters(username, address):
        if int(cache.get(key, 0)) >= limit:
            cache.set(f"{key}:locked", time.time() + lockout, timeout=lockout)
            cache.delete(key)


def posted_username(request: Request) -> str:
    """The username a sign-in request names ('' when it names none)."""
    data: Any = request.data
    username = data.get("username", "") if isinstance(data, dict) else ""
    return username if isinstance(username, str) else ""


class SignInThrottle(BaseThrottle):
    """Refuses a sign-in while its address or its username is locked (429, Retry-After).
    The address is checked first, so a locked address is refused before the body is read."""

    def __init__(self) -> None:
        self.seconds = 0

    def allow_request(self, request: Request, view: Any) -> bool:
        address = client_address(request)
        self.seconds = address_wait(address)
        if not self.seconds:
            self.seconds = signin_wait(username=posted_username(request), address=address)
        return self.seconds == 0

    def wait(self) -> float | None:
        return float(self.seconds) or None


def _too_many(seconds: int) -> HttpResponse:
    reply = HttpResponse(
        f"Too many failed sign-ins. Try again in {seconds} seconds.",
        content_type="text/plain; charset=utf-8",
        status=429,
    )
    reply["Retry-After"] = str(seconds)
    return reply


def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin's login page, throttled like the token endpoint: a POST that does not sign
    in counts as a failure; while locked, every POST is a 429 with Retry-After."""
    if request.method != "POST":
        return admin.site.login(request)
    username, address = str(request.POST.get("username", "")), client_address(request)
    seconds = signin_begin(username=username, address=address)
    if seconds:
        return _too_many(seconds)
    reply = admin.site.login(request)
    succeeded = reply.status_code == 302 and request.user.is_authenticated
    signin_end(username=username, address=address, succeeded=succeeded)
    return reply

"""A scripted LMS: talks to Vivabank over real HTTP with an API client token, as an
integrator's code would (urllib only, no Django test client)."""

import json
import urllib.error
import urllib.request
from typing import Any


class HttpApi:
    """JSON over HTTP to one base URL with one Authorization header."""

    def __init__(self, base: str, authorization: str = "") -> None:
        self.base = base.rstrip("/")
        self.authorization = authorization

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)  # noqa: S310  (the live server's http URL)
        request.add_header("Content-Type", "application/json")
        if self.authorization:
            request.add_header("Authorization", self.authorization)
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:  # noqa: S310  (as above)
                return reply.status, _json(reply.read())
        except urllib.error.HTTPError as error:
            return error.code, _json(error.read())

    def ok(self, method: str, path: str, body: Any = None) -> Any:
        status, data = self.call(method, path, body)
        assert status in (200, 201), (method, path, status, data)
        return data


def _json(raw: bytes) -> Any:
    return json.loads(raw) if raw else None


def sign_in(base: str, username: str, password: str) -> HttpApi:
    """A student's own session: the token from /api/auth/token/."""
    token = HttpApi(base).ok(
        "POST", "/api/auth/token/", {"username": username, "password": password}
    )
    return HttpApi(base, f"Token {token['token']}")

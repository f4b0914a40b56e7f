"""The benchmark's student over HTTP: the same calls as the in-process `APIClient`, sent to a
real gunicorn on loopback with the student's API token."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Reply:
    status_code: int
    content: bytes

    def json(self) -> Any:
        return json.loads(self.content)


class HttpClient:
    """`post`, `put` and `get` as the bench calls them on an `APIClient`, over HTTP."""

    def __init__(self, base_url: str, token: str) -> None:
        self.base_url = base_url
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def post(self, path: str, data: Any = None, format: str = "json") -> Reply:  # noqa: A002 - APIClient's name
        return self._send("POST", path, data)

    def put(self, path: str, data: Any = None, format: str = "json") -> Reply:  # noqa: A002 - APIClient's name
        return self._send("PUT", path, data)

    def get(self, path: str) -> Reply:
        return self._send("GET", path, None)

    def _send(self, method: str, path: str, data: Any) -> Reply:
        body = None if data is None else json.dumps(data).encode()
        request = urllib.request.Request(  # noqa: S310 - the bench's own loopback server
            self.base_url + path, data=body, method=method, headers=self.headers
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:  # noqa: S310 - as above
                return Reply(reply.status, reply.read())
        except urllib.error.HTTPError as error:
            return Reply(error.code, error.read())

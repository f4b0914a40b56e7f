"""An internal service the platform must not make Vivabank call: a server on 127.0.0.1
reached as `localhost`, a host no registration names and that resolves to a loopback
address, which records every request that reaches it."""

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.lms.receivers import serving


@contextmanager
def internal_service() -> Iterator[tuple[list[str], str]]:
    """(the paths it was asked for, its base URL as `http://localhost:<port>`)."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            hits.append(self.path)
            body = b'{"members": [{"user_id": "from-inside", "roles": ["Learner"]}]}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _record

        def log_message(self, *args: Any) -> None:
            pass

    with serving(Handler) as port:
        yield hits, f"http://localhost:{port}"

"""Small helpers for driving the attempt API in tests."""

import io
from collections.abc import Callable
from typing import Any

from django.core.signals import request_started
from django.db import close_old_connections
from rest_framework.test import APIClient

from config.wsgi import application


def start(client: APIClient, quiz_id: int) -> dict[str, Any]:
    reply = client.post(f"/api/quizzes/{quiz_id}/attempts/")
    assert reply.status_code == 201, reply.content
    data: dict[str, Any] = reply.json()
    return data


def save(client: APIClient, attempt: int, position: int, answer: Any, version: int = 0) -> Any:
    return client.put(
        f"/api/attempts/{attempt}/responses/{position}/",
        {"answer": answer, "version": version},
        format="json",
    )


def submit(client: APIClient, attempt: int, key: str = "") -> Any:
    headers = {"Idempotency-Key": key} if key else {}
    return client.post(f"/api/attempts/{attempt}/submit/", headers=headers)


ROLES = ["anonymous", "student", "examiner", "author", "admin"]
ANON = (401,)


def client_as(users: dict[str, Any], role: str) -> APIClient:
    """An API client signed in as the matrix user of `role` (anonymous: not signed in)."""
    client = APIClient()
    if users[role] is not None:
        client.force_authenticate(users[role])
    return client


def listed_ids(client: APIClient, url: str) -> set[int]:
    """The ids a list endpoint shows `client` (one page of up to 500 rows)."""
    return {row["id"] for row in client.get(url, {"page_size": 500}).json()["results"]}


def assert_matrix_status(status: int, *, role: str, where: str, expected: dict[str, int]) -> None:
    """The permission rule every endpoint shares: anonymous is refused, another course's
    objects do not exist (404) except for admins, and otherwise `expected[role]`."""
    if role == "anonymous":
        assert status in ANON
    elif where == "other" and role != "admin":
        assert status == 404
    else:
        assert status == expected[role]


def served(
    method: str, url: str, body: bytes = b"", **environ: str
) -> tuple[str, dict[str, str], bytes]:
    """One request through the WSGI application that gunicorn and runserver serve
    (config.wsgi), which builds the request from `environ` itself, unlike the test client:
    (status line, headers, body). `environ` adds or replaces WSGI keys (CONTENT_TYPE, ...)."""
    path, _, query = url.partition("?")
    base = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "HTTP_HOST": "127.0.0.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": io.StringIO(),
    }
    started: list[tuple[str, list[tuple[str, str]]]] = []

    def start_response(
        status: str, headers: list[tuple[str, str]], exc_info: Any = None, /
    ) -> Callable[[bytes], object]:
        started.append((status, headers))
        return lambda chunk: None

    # As Django's test client does: the test's transaction must outlive the request.
    request_started.disconnect(close_old_connections)
    try:
        chunks = application({**base, **environ}, start_response)
        content = b"".join(chunks)
    finally:
        request_started.connect(close_old_connections)
    status, headers = started[0]
    return status, dict(headers), content

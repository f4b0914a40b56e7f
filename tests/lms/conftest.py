"""API clients with real tokens, sent as `Authorization: Bearer ...` headers."""

import socket
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from lms.models import ApiClient
from lms.services.tokens import api_client_create, token_issue
from tests.lms.lti_world import lti  # noqa: F401  (the LTI world fixture, for every test here)

ALL_SCOPES = ["grades:read", "roster:manage", "quizzes:manage", "questions:manage"]


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


def bearer(key: str) -> APIClient:
    """A DRF test client that sends the API client token on every request."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


MakeClient = Callable[..., tuple[ApiClient, APIClient]]


@pytest.fixture
def make_client(db: None) -> MakeClient:
    """make_client("moodle", scopes=[...]) -> (the ApiClient, a test client with its token)."""

    def make(name: str = "moodle", scopes: list[str] | None = None) -> tuple[ApiClient, APIClient]:
        client = ApiClient.objects.filter(name=name).first() or api_client_create(name=name)
        _, key = token_issue(client=client, scopes=ALL_SCOPES if scopes is None else scopes)
        return client, bearer(key)

    return make


# A send lost because the broker was down at the commit: the request that caused it still
# succeeds, and beat's `lms.resend_unsent` queues it once LMS_RESEND_AFTER_S has passed.
RESEND_AFTER = timedelta(seconds=301)  # past LMS_RESEND_AFTER_S (300 s by default)
CaptureCommits = Callable[..., AbstractContextManager[list[Callable[[], Any]]]]


@pytest.fixture
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Names the tests make up, answered from this table (first answer first, then the
    next); every other name resolves as usual."""
    table: dict[str, list[str]] = {}
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        answers = table.get(str(host))
        if not answers:
            return real(host, port, *args, **kwargs)
        address = answers.pop(0) if len(answers) > 1 else answers[0]
        return real(address, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return table

"""Shared pytest fixtures.

Tests talk to the real PostgreSQL and Redis on this machine. Under CI=true a
missing service fails the run instead of skipping tests.
"""

import os
import socket
from collections.abc import Callable, Iterator

import pytest
from django.conf import settings


def _service_is_up(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def require_service(name: str, host: str, port: int) -> None:
    """Skip (locally) or fail (under CI) when a real service is unreachable."""
    if _service_is_up(host, port):
        return
    message = f"{name} is not reachable at {host}:{port}"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session", autouse=True)
def _database_is_postgres() -> None:
    engine = settings.DATABASES["default"]["ENGINE"]
    if os.environ.get("CI") == "true" and "postgresql" not in engine:
        pytest.fail(f"tests must run against PostgreSQL under CI, not {engine}")


# One broker database for every test that starts workers through the project's
# Celery app: switching the app between brokers mid-session breaks its pools.
# TEST_BROKER_URL picks another database where several checkouts share one Redis.
TEST_BROKER_URL = os.environ.get("TEST_BROKER_URL", "redis://127.0.0.1:6379/13")


@pytest.fixture
def redis_url() -> str:
    require_service("Redis", "127.0.0.1", 6379)
    return TEST_BROKER_URL


@pytest.fixture
def require() -> Callable[[str, str, int], None]:
    return require_service


@pytest.fixture
def celery_eager() -> Iterator[None]:
    """Run Celery tasks inline in this process (unit tests; integration tests use real workers)."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = previous

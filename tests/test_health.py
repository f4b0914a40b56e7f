"""/healthz, /readyz, the admin's queue page, JSON logs with ids, and 503 for a lost database."""

import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import OperationalError
from django.test import Client

from config.celery_workers import use_broker, worker_processes
from config.exceptions import database_unavailable
from config.health import workers_by_queue
from config.logging import ClientErrorFilter, ContextFilter, JsonFormatter

# Redis databases 8-11 belong to this suite's fault and health tests.
HEALTH_BROKER = "redis://127.0.0.1:6379/8"
NO_WORKER_BROKER = "redis://127.0.0.1:6379/9"


def test_healthz_answers_ok_without_touching_anything(client: Client) -> None:
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_readyz_is_503_naming_each_queue_without_a_worker(
    client: Client, require: Callable[[str, str, int], None]
) -> None:
    require("Redis", "127.0.0.1", 6379)
    use_broker(NO_WORKER_BROKER)

    response = client.get("/readyz")

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    body = response.json()
    assert body["status"] == "not_ready"
    assert body["checks"]["database"] == {"ok": True}
    assert body["checks"]["broker"] == {"ok": True}
    assert body["checks"]["queues"]["cpu"] == {"ok": False, "workers": []}


@pytest.mark.django_db
def test_readyz_is_503_when_the_broker_is_unreachable(client: Client) -> None:
    use_broker("redis://127.0.0.1:1/0")
    try:
        body = client.get("/readyz").json()
    finally:
        use_broker(NO_WORKER_BROKER)

    assert body["status"] == "not_ready"
    assert body["checks"]["broker"]["ok"] is False


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_readyz_is_ready_once_a_worker_answers_on_every_queue(
    client: Client, require: Callable[[str, str, int], None]
) -> None:
    require("Redis", "127.0.0.1", 6379)
    with worker_processes(HEALTH_BROKER, queues="default,cpu", name="ready"):
        response = client.get("/readyz")

    assert response.status_code == 200, response.json()
    queues = response.json()["checks"]["queues"]
    assert queues["cpu"]["ok"]
    assert queues["default"]["ok"]


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_ping_that_found_every_worker_is_reused_and_one_that_did_not_is_not(
    client: Client, require: Callable[[str, str, int], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ping waits its whole timeout, holding a web process: a balancer probing every few
    seconds pays it once per HEALTH_WORKERS_FRESH_S while all is well, and every time while
    a queue has no worker (so a worker back is seen at once)."""
    require("Redis", "127.0.0.1", 6379)
    cache.clear()
    pings: list[int] = []

    def counted() -> dict[str, list[str]]:
        pings.append(1)
        return workers_by_queue()

    monkeypatch.setattr("config.health.workers_by_queue", counted)
    use_broker(NO_WORKER_BROKER)
    assert [client.get("/readyz").status_code for _ in range(2)] == [503, 503]
    assert len(pings) == 2
    with worker_processes(HEALTH_BROKER, queues="default,cpu", name="fresh"):
        assert [client.get("/readyz").status_code for _ in range(3)] == [200, 200, 200]
    assert len(pings) == 3
    cache.clear()


@pytest.mark.django_db
def test_the_queue_page_is_for_staff_only(client: Client) -> None:
    student = User.objects.create_user("student", password="pw-123456789")
    client.force_login(student)

    assert client.get("/admin/queues/").status_code == 302  # to the admin login


@pytest.mark.django_db
def test_the_queue_page_shows_each_queue_to_staff(
    client: Client, require: Callable[[str, str, int], None]
) -> None:
    require("Redis", "127.0.0.1", 6379)
    use_broker(NO_WORKER_BROKER)
    staff = User.objects.create_user("staff", password="pw-123456789", is_staff=True)
    client.force_login(staff)

    page = client.get("/admin/queues/").content.decode()

    assert "Grading queues" in page
    for queue in ("default", "cpu", "gpu"):
        assert f"<td>{queue}</td>" in page


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.addFilter(ContextFilter())
        self.addFilter(ClientErrorFilter())
        self.setFormatter(JsonFormatter())

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def json_lines() -> Iterator[list[str]]:
    handler = _Lines()
    logging.getLogger().addHandler(handler)
    try:
        yield handler.lines
    finally:
        logging.getLogger().removeHandler(handler)


@pytest.mark.django_db
def test_a_request_logs_json_with_its_request_and_attempt_ids(
    client: Client, json_lines: list[str]
) -> None:
    response = client.get("/api/attempts/424242/", headers={"X-Request-ID": "exam-room-7"})

    assert response["X-Request-ID"] == "exam-room-7"
    entries = [json.loads(line) for line in json_lines]
    logged = [entry for entry in entries if entry["logger"] == "django.request"]
    assert logged, entries
    assert logged[-1]["request_id"] == "exam-room-7"
    assert logged[-1]["attempt_id"] == 424242
    assert logged[-1]["level"] == "WARNING"


@pytest.mark.parametrize(("status", "traced"), [(403, False), (404, False), (500, True)])
def test_only_a_server_error_is_logged_with_its_traceback(status: int, traced: bool) -> None:
    """A 4xx is the client's doing: its traceback would only bury the 5xx ones."""
    handler = _Lines()
    try:
        raise PermissionError("refused")
    except PermissionError:
        record = logging.getLogger("django.request").makeRecord(
            "django.request",
            logging.WARNING,
            __file__,
            1,
            "Forbidden: %s",
            ("/x/",),
            sys.exc_info(),
            extra={"status_code": status},
        )
    handler.handle(record)
    [line] = handler.lines
    assert ("exception" in json.loads(line)) is traced


def test_a_client_request_id_that_is_not_plain_text_is_replaced(client: Client) -> None:
    response = client.get("/healthz", headers={"X-Request-ID": "x" * 65})

    assert len(response["X-Request-ID"]) == 32


def test_a_lost_database_is_a_503_to_retry_in_the_one_error_shape() -> None:
    response = database_unavailable(OperationalError("server closed the connection"))

    assert response is not None
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.data["error"]["code"] == "database_unavailable"
    assert set(response.data["error"]) == {"code", "message", "fields"}


def test_with_debug_on_a_refused_request_is_logged_once_without_its_traceback() -> None:
    """`make run` runs with DEBUG on, where Django's own logging adds a console handler
    that printed every 403 with its traceback, besides ours."""
    script = """
import logging, logging.config, sys
from django.utils.log import DEFAULT_LOGGING
from django.test.utils import override_settings
from config.logging import logging_config
with override_settings(DEBUG=True):
    logging.config.dictConfig(DEFAULT_LOGGING)
    logging.config.dictConfig(logging_config(level="INFO", json_format=False))
    try:
        raise PermissionError("not yours")
    except PermissionError:
        logging.getLogger("django.request").warning(
            "Forbidden (Permission denied): /x/", exc_info=True, extra={"status_code": 403}
        )
"""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "SECRET_KEY": "x"}
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()\n" + script],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr.count("Forbidden (Permission denied): /x/") == 1, done.stderr
    assert "Traceback" not in done.stderr

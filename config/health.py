"""Liveness, readiness and the queue page: what a load balancer and an examiner ask.

`/healthz` answers while the process serves at all. `/readyz` answers 200 only when the
database takes a query, the broker a connection and every queue in `HEALTH_QUEUES` has a
worker answering a ping (a ping that found them all is reused for HEALTH_WORKERS_FRESH_S);
otherwise 503 with what failed, so a balancer sends no students to a web process that would
fail them.
"""

import contextlib
import hashlib
import time
from typing import Any

from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.html import format_html, format_html_join
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from config.celery import app

# Seconds each check may take: a readiness probe must answer before the balancer gives up.
CHECK_TIMEOUT_S = 1


def database_check() -> dict[str, Any]:
    """{"ok": True} when the database answers `SELECT 1`, else the error."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as error:  # noqa: BLE001 (a probe reports every failure as "not ready")
        return {"ok": False, "error": f"{type(error).__name__}: {error}"[:300]}
    return {"ok": True}


def broker_check() -> dict[str, Any]:
    """{"ok": True} when the Celery broker accepts a connection within the timeout."""
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=CHECK_TIMEOUT_S)
    except Exception as error:  # noqa: BLE001 (a probe reports every failure as "not ready")
        return {"ok": False, "error": f"{type(error).__name__}: {error}"[:300]}
    return {"ok": True}


def workers_by_queue() -> dict[str, list[str]]:
    """The workers answering a ping within the timeout, by the queues they consume."""
    try:
        replies = app.control.inspect(timeout=CHECK_TIMEOUT_S).active_queues() or {}
    except Exception:  # noqa: BLE001 (no broker: no workers can be seen)
        return {}
    found: dict[str, list[str]] = {}
    for worker, queues in replies.items():
        for queue in queues or []:
            found.setdefault(str(queue.get("name")), []).append(worker)
    return found


def queue_depths(queues: list[str]) -> dict[str, int | None]:
    """Messages waiting in each queue (None where the broker would not say)."""
    depths: dict[str, int | None] = {}
    try:
        with app.connection_for_read() as conn:
            # kombu's virtual channels (Redis, filesystem) all have queue_declare; the stub's
            # StdChannel does not list it.
            channel: Any = conn.default_channel
            for queue in queues:
                depths[queue] = int(channel.queue_declare(queue=queue, passive=True).message_count)
    except Exception:  # noqa: BLE001 (the page shows "unknown" rather than failing)
        return {queue: depths.get(queue) for queue in queues}
    return depths


def _workers_seen() -> dict[str, list[str]]:
    """`workers_by_queue`, or its last result from the last HEALTH_WORKERS_FRESH_S seconds
    when that one found a worker on every queue (per broker: tests and a move change it)."""
    broker = hashlib.sha256(str(app.conf.broker_url).encode()).hexdigest()[:16]  # no password
    key = f"health:workers:{broker}"
    try:
        seen: dict[str, list[str]] | None = cache.get(key)
    except Exception:  # noqa: BLE001 (a cache that is down: ping, as with none)
        seen = None
    if seen is None:
        seen = workers_by_queue()
        if all(seen.get(queue) for queue in settings.HEALTH_QUEUES):
            with contextlib.suppress(Exception):  # the probe answers whatever the cache does
                cache.set(key, seen, timeout=settings.HEALTH_WORKERS_FRESH_S)
    return seen


def readiness() -> dict[str, Any]:
    """Every check with its verdict; "ready" only when all pass."""
    workers = _workers_seen()
    queues = {
        queue: {"ok": bool(workers.get(queue)), "workers": workers.get(queue, [])}
        for queue in settings.HEALTH_QUEUES
    }
    checks = {"database": database_check(), "broker": broker_check(), "queues": queues}
    ready = checks["database"]["ok"] and checks["broker"]["ok"]
    ready = ready and all(queue["ok"] for queue in queues.values())
    return {"status": "ready" if ready else "not_ready", "checks": checks}


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness: the process serves requests (nothing else is checked)."""
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """Readiness: database, broker and a worker per queue; 503 naming what failed."""
    started = time.monotonic()
    body = readiness()
    body["took_ms"] = round((time.monotonic() - started) * 1000, 1)
    response = JsonResponse(body, status=200 if body["status"] == "ready" else 503)
    if response.status_code == 503:
        response["Retry-After"] = "5"
    return response


def _rows(values: dict[str, Any]) -> str:
    return format_html_join("", "<tr><td>{}</td><td>{}</td></tr>", values.items())


@staff_member_required
@never_cache
def queues_page(request: HttpRequest) -> HttpResponse:
    """Staff page: messages waiting per queue and the workers consuming each."""
    queues = ["default", "cpu", "gpu"]
    depths = {queue: "unknown" if n is None else n for queue, n in queue_depths(queues).items()}
    workers = workers_by_queue()
    listed = {queue: ", ".join(workers.get(queue, [])) or "none" for queue in queues}
    html = format_html(
        "<!doctype html><title>Queues</title><h1>Grading queues</h1>"
        "<h2>Messages waiting</h2><table>{}</table>"
        "<h2>Workers answering a ping</h2><table>{}</table>",
        _rows(depths),
        _rows(listed),
    )
    return HttpResponse(html)

"""Start and stop real Celery worker processes (the integration test and the benchmark)."""

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from config.celery import app

CELERY = Path(sys.executable).with_name("celery")


def database_url() -> str:
    """A URL for the database this process is using (the test database under pytest)."""
    db = settings.DATABASES["default"]
    host, port = db.get("HOST") or "127.0.0.1", db.get("PORT") or 5432
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{host}:{port}/{db['NAME']}"


def use_broker(broker_url: str) -> None:
    """Point this process's Celery app at `broker_url` (drops pooled connections)."""
    if app.conf.broker_url == broker_url:
        return  # already there; the cached pools (also held by app.control) stay valid
    app.conf.update(broker_url=broker_url, broker_transport_options={"visibility_timeout": 3600})
    # Celery builds its connection and producer pools lazily from the URL; drop any built.
    # The attributes are private and absent from celery-types, hence the ignores.
    pool = getattr(app, "_pool", None)
    if pool is not None:
        pool.force_close_all()
    app._pool = None  # type: ignore[attr-defined]  # private pool, rebuilt on next use
    app.amqp._producer_pool = None  # type: ignore[attr-defined]  # likewise


def _wait_ready(names: list[str], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        replies = app.control.ping(destination=names, timeout=1.0) or []
        answered = {name for reply in replies for name in reply}
        if answered >= set(names):
            return
    raise RuntimeError(f"workers {names} did not answer within {timeout_s} s")


@contextmanager
def worker_processes(broker_url: str, count: int = 1, timeout_s: float = 90.0) -> Iterator[None]:
    """Run `count` single-process workers on the `cpu` and `default` queues until exit."""
    use_broker(broker_url)
    app.control.purge()  # jobs left by an earlier, interrupted run would skew the results
    env = {**os.environ, "CELERY_BROKER_URL": broker_url, "DATABASE_URL": database_url()}
    names = [f"bench{index}-{os.getpid()}@localhost" for index in range(count)]
    command = [str(CELERY), "-A", "config", "worker", "-Q", "cpu,default", "-c", "1",
               "-P", "prefork", "--without-gossip", "--without-mingle"]  # fmt: skip
    command += ["-l", "WARNING"]
    # S603: the argv is ours, built above; nothing comes from a request.
    procs = [
        subprocess.Popen([*command, "-n", name], env=env, cwd=settings.BASE_DIR)  # noqa: S603
        for name in names
    ]
    try:
        _wait_ready(names, timeout_s)
        yield
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()

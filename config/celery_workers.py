"""Start and stop real Celery worker processes: for the integration tests and the benchmarks,
which must exercise the worker exactly as `make run` and production start it."""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from django.conf import settings
from kombu import pools

from config.celery import app


def database_url() -> str:
    """A URL for the database this process is using (the test database under pytest)."""
    db = settings.DATABASES["default"]
    if "sqlite" in db["ENGINE"]:
        return f"sqlite:///{db['NAME']}"
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
    # kombu keeps them in a process-wide registry keyed by URL, so a URL used again would get
    # its closed pool back ("Acquire on closed pool"): reset the registry, not one pool.
    # The attributes are private and absent from celery-types, hence the ignores.
    pools.reset()
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


def worker_names(name: str, count: int = 1) -> list[str]:
    """The node names `worker_processes(name=name)` gives its workers (unique per test run)."""
    return [f"{name}{index}-{os.getpid()}@localhost" for index in range(count)]


def stop_group(
    process: subprocess.Popen[bytes], *, first: int = signal.SIGTERM, timeout_s: float = 60
) -> None:
    """`first` to the process's whole group (a worker's pool children too), then SIGKILL if
    it has not exited within `timeout_s`."""
    os.killpg(process.pid, first)
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@contextmanager
def worker_processes(
    broker_url: str,
    count: int = 1,
    *,
    queues: str = "cpu,default",
    name: str = "worker",
    ready_timeout_s: float | None = 90.0,
    env: Mapping[str, str] | None = None,
) -> Iterator[None]:
    """Run `count` single-process workers on `queues` with `env` until the block ends.

    With `ready_timeout_s`, this process's app moves to `broker_url`, drops what is queued
    there (an interrupted earlier run would skew results) and waits until every worker
    answers a ping; None starts them and returns at once (a broker the app cannot ping).
    """
    environment = {
        **os.environ,
        "CELERY_BROKER_URL": broker_url,
        "DATABASE_URL": database_url(),
        "SECRET_KEY": os.environ.get("SECRET_KEY", "test-only"),
        **(env or {}),
    }
    names = worker_names(name, count)
    if ready_timeout_s is not None:
        use_broker(broker_url)
        app.control.purge()
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queues]
    command += ["-c", "1", "-P", "prefork", "--without-gossip", "--without-mingle", "-l", "WARNING"]
    processes = [
        # S603: the argv is ours, built above; nothing comes from a request.
        subprocess.Popen(  # noqa: S603
            [*command, "-n", worker], env=environment, cwd=settings.BASE_DIR, start_new_session=True
        )
        for worker in names
    ]
    try:
        if ready_timeout_s is not None:
            _wait_ready(names, ready_timeout_s)
        yield
    finally:
        for process in processes:
            stop_group(process)

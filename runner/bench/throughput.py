"""Sustained throughput: N worker processes, each with its own supervisor, fed from one queue."""

from __future__ import annotations

import multiprocessing
import queue
import time
from typing import Any

_START_TIMEOUT_S = 300.0
_DRAIN_TIMEOUT_S = 60.0


def _worker(jobs: Any, results: Any) -> None:
    import django

    django.setup()
    from runner.bench.question import bench_job
    from runner.types import Status
    from runner.worker import grade

    grade(bench_job(-1))
    results.put(("ready", True))
    while (index := jobs.get()) is not None:
        result = grade(bench_job(index))
        results.put((index, result.status == Status.OK and result.score == 1.0))


def measure_throughput(workers: int, seconds: float) -> dict[str, Any]:
    """Grade as many jobs as the workers can for `seconds`; count what came back."""
    context = multiprocessing.get_context("spawn")
    jobs, results = context.Queue(), context.Queue()
    processes = [context.Process(target=_worker, args=(jobs, results)) for _ in range(workers)]
    for process in processes:
        process.start()
    for _ in processes:
        results.get(timeout=_START_TIMEOUT_S)
    sent = received = wrong = 0
    started = time.monotonic()
    last = started
    while time.monotonic() - started < seconds:
        while sent - received < 2 * workers:
            jobs.put(sent)
            sent += 1
        try:
            _, ok = results.get(timeout=1.0)
        except queue.Empty:
            continue
        received, wrong, last = received + 1, wrong + (not ok), time.monotonic()
    while received < sent:
        try:
            _, ok = results.get(timeout=_DRAIN_TIMEOUT_S)
        except queue.Empty:
            break
        received, wrong, last = received + 1, wrong + (not ok), time.monotonic()
    for _ in processes:
        jobs.put(None)
    for process in processes:
        process.join(timeout=30)
    return {
        "throughput_per_s": round(received / (last - started), 1),
        "jobs": sent,
        "received": received,
        "lost": sent - received,
        "wrong": wrong,
        "workers": workers,
        "seconds": seconds,
    }

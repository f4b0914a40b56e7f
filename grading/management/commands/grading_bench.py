"""`manage.py grading_bench [--json] [--http]`: submit -> graded, autosave and bulk regrade on
real services.

Runs two real worker processes on Redis against the configured PostgreSQL
database, in a scratch course that is removed afterwards. The student's requests go to the
API in this process, or with `--http` to gunicorn (two sync processes) on loopback.
"""

import json
import time
from argparse import ArgumentParser
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from rest_framework.authtoken.models import Token

from config.celery_workers import worker_processes
from config.web_processes import gunicorn
from grading.bench.http import HttpClient
from grading.bench.measure import (
    STAGES,
    BenchClient,
    autosave_ms,
    client_for,
    submit_to_graded,
    summary,
)
from grading.bench.regrade import bench_regrade_run
from grading.bench.scenario import Scenario, scenario_create, scenario_delete


class Command(BaseCommand):
    help = "Measure submit -> graded, autosave latency and bulk regrade with two real workers."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--json", action="store_true", help="Print one JSON object.")
        parser.add_argument("--submits", type=int, default=40)
        parser.add_argument("--autosaves", type=int, default=300)
        parser.add_argument("--regrades", type=int, default=1000, help="0 skips the regrade.")
        parser.add_argument("--broker", default="", help="Redis URL (default: settings or db 12).")
        parser.add_argument(
            "--http", action="store_true", help="Send the requests to gunicorn over loopback."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if "postgresql" not in settings.DATABASES["default"]["ENGINE"]:
            raise CommandError("grading_bench needs PostgreSQL (set DATABASE_URL).")
        broker = options["broker"] or _redis_url()
        scenario = scenario_create()
        try:
            with worker_processes(broker, count=2), _client(scenario, broker, options) as client:
                figures = self._measure(client, scenario, options["submits"], options["autosaves"])
                figures["transport"] = "http" if options["http"] else "in-process"
                figures.update(_regrade_figures(scenario, options["regrades"]))
        finally:
            scenario_delete()
        self._print(figures, as_json=options["json"])

    def _measure(
        self, client: BenchClient, scenario: Scenario, submits: int, autosaves: int
    ) -> dict[str, Any]:
        for _ in range(5):  # warm the zygotes and the reference cache
            submit_to_graded(client, scenario)
        timings = [submit_to_graded(client, scenario) for _ in range(submits)]
        graded = summary([timing["total"] for timing in timings])
        saved = summary(autosave_ms(client, scenario, autosaves))
        return {
            "submit_to_graded_p50_ms": graded["p50"],
            "submit_to_graded_p95_ms": graded["p95"],
            "submit_stages_p50_ms": {
                stage: summary([timing[stage] for timing in timings])["p50"] for stage in STAGES
            },
            "autosave_p50_ms": saved["p50"],
            "autosave_p99_ms": saved["p99"],
            "submits": submits,
            "autosaves": autosaves,
            "workers": 2,
        }

    def _print(self, figures: dict[str, Any], *, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(figures))
            return
        width = max(len(key) for key in figures)
        for key, value in figures.items():
            self.stdout.write(f"{key.ljust(width)}  {'-' if value is None else value}")


@contextmanager
def _client(scenario: Scenario, broker: str, options: dict[str, Any]) -> Iterator[BenchClient]:
    """The scenario's student: in this process, or over HTTP to gunicorn on `broker`."""
    if not options["http"]:
        yield client_for(scenario)
        return
    token, _ = Token.objects.get_or_create(user=scenario.student)
    with gunicorn(workers=2, env={"CELERY_BROKER_URL": broker}) as (url, _master):
        yield HttpClient(url, token.key)


def _regrade_figures(scenario: Any, count: int) -> dict[str, Any]:
    """Seconds to regrade `count` code answers (the workers are warm from the submits)."""
    if count <= 0:
        return {"regrade_1000_s": None, "regrades": 0}
    began = time.perf_counter()
    run = bench_regrade_run(scenario, count=count)
    seconds = time.perf_counter() - began
    # Scaled to 1,000 answers when asked for fewer; exact at the default.
    return {
        "regrade_1000_s": round(seconds * 1000 / count, 2),
        "regrades": count,
        "regrade_changed": run.changed,
        "regrade_failed": run.failed,
    }


def _redis_url() -> str:
    configured = str(settings.CELERY_BROKER_URL)
    return configured if configured.startswith("redis") else "redis://127.0.0.1:6379/12"

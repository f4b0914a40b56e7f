"""`manage.py runner_bench [--json]`: warm-zygote grading against a fresh process per job."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from runner.bench.figures import BenchSettings, run_benchmark

_ROWS = (
    ("warm_p50_ms", "warm zygote, p50 (ms)"),
    ("warm_p95_ms", "warm zygote, p95 (ms)"),
    ("cold_p50_ms", "fresh process, p50 (ms)"),
    ("cold_p95_ms", "fresh process, p95 (ms)"),
    ("speedup_p50", "speed-up at p50 (x)"),
    ("throughput_per_s", "throughput (gradings/s)"),
    ("jobs", "jobs in the throughput run"),
    ("lost", "lost (sent - received)"),
    ("zygote_rss_mb", "zygote RSS (MB)"),
    ("workers", "worker processes"),
    ("seconds", "throughput window (s)"),
)


class Command(BaseCommand):
    help = "Benchmark grading through the warm zygote against the naive fresh-process way."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument("--seconds", type=float, default=30.0, help="throughput window")
        parser.add_argument("--warm-jobs", type=int, default=200)
        parser.add_argument("--cold-jobs", type=int, default=8)
        parser.add_argument("--workers", type=int, default=2)

    def handle(self, *args: Any, **options: Any) -> None:
        settings = BenchSettings(
            seconds=options["seconds"],
            warm_jobs=options["warm_jobs"],
            cold_jobs=options["cold_jobs"],
            workers=options["workers"],
        )
        figures = run_benchmark(settings)
        if options["json"]:
            self.stdout.write(json.dumps(figures))
            return
        width = max(len(label) for _, label in _ROWS)
        for key, label in _ROWS:
            self.stdout.write(f"{label:<{width}}  {figures[key]}")

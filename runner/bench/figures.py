"""The figures behind `runner_bench`: warm latency, naive latency, sustained throughput."""

from __future__ import annotations

import json
import multiprocessing
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.bench.question import CASES, REFERENCE, bench_job
from runner.bench.throughput import measure_throughput
from runner.registry import get_supervisor
from runner.types import GradingJob, Status
from runner.worker import grade

_COLD_SCRIPT = (
    "import json, sys\n"
    "import torch\n"
    "torch.set_num_threads(1)\n"
    "from runner.harness.child import run_request\n"
    "sys.stdout.buffer.write(run_request(json.load(sys.stdin)))\n"
)


@dataclass(frozen=True)
class BenchSettings:
    seconds: float = 30.0
    warm_jobs: int = 200
    cold_jobs: int = 8
    workers: int = 2


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _checked(job: GradingJob) -> float:
    started = time.perf_counter()
    result = grade(job)
    elapsed = (time.perf_counter() - started) * 1000
    if result.status != Status.OK or result.score != 1.0:
        raise RuntimeError(f"benchmark job failed: {result.status} {result.message}")
    return elapsed


def _cold_once(job: GradingJob, reference: bytes) -> float:
    from runner.harness.scoring import Payloads, score_job

    request = {
        "source": job.source,
        "entry_point": job.entry_point,
        "cases": job.cases,
        "forbidden": [],
        "device": "cpu",
        "role": "student",
    }
    started = time.perf_counter()
    done = subprocess.run(  # noqa: S603 - our interpreter, our script
        [sys.executable, "-E", "-s", "-c", _COLD_SCRIPT],
        input=json.dumps(request).encode(),
        capture_output=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],  # the checkout, so `runner` imports
        env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
    )
    score, _, status, message = score_job(job, Payloads(reference, visible=done.stdout))
    if status != Status.OK or score != 1.0:
        raise RuntimeError(f"naive benchmark job failed: {status} {message}")
    return (time.perf_counter() - started) * 1000


def _zygote_rss_mb() -> float:
    zygote = get_supervisor().zygote
    if zygote is None:
        return 0.0
    with open(f"/proc/{zygote.pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def run_benchmark(settings: BenchSettings) -> dict[str, Any]:
    """Run all three measurements in this process (plus worker processes) and return figures."""
    from runner.reference_cache import reference_cache

    for index in range(5):
        _checked(bench_job(index))  # warm-up, and the reference's outputs are now cached
    warm = [_checked(bench_job(index)) for index in range(settings.warm_jobs)]
    job = bench_job(0)
    reference = reference_cache.get(reference_cache.key(REFERENCE, job.entry_point, CASES, "cpu"))
    if not isinstance(reference, bytes):
        raise RuntimeError("the reference outputs were not cached")
    cold = [_cold_once(job, reference) for _ in range(settings.cold_jobs)]
    throughput = measure_throughput(settings.workers, settings.seconds)
    warm_p50, cold_p50 = statistics.median(warm), statistics.median(cold)
    probe = get_supervisor().probe()
    return {
        "warm_p50_ms": round(warm_p50, 2),
        "warm_p95_ms": round(_percentile(warm, 0.95), 2),
        "cold_p50_ms": round(cold_p50, 1),
        "cold_p95_ms": round(_percentile(cold, 0.95), 1),
        "speedup_p50": round(cold_p50 / warm_p50, 1),
        "zygote_rss_mb": _zygote_rss_mb(),
        "warm_jobs": len(warm),
        "cold_jobs": len(cold),
        "cpu_count": multiprocessing.cpu_count(),
        "cpu_quota": probe["cpu_quota"],
        "sandbox_notes": probe["notes"],
        **throughput,
    }

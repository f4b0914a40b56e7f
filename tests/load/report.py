"""After `make load`: wait for the grading to drain, then print the run's figures as JSON.

Run as `python -m tests.load.report TIMES_JSON` with the load run's DATABASE_URL: request
rates and latencies from the locust run, and from the database how long each code answer
took from submit to graded and whether every one was graded exactly once.
"""

import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def _percentiles(values: list[float]) -> dict[str, float | None]:
    if len(values) < 2:
        return {"p50": values[0] if values else None, "p95": None, "p99": None}
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return {"p50": round(cuts[49], 1), "p95": round(cuts[94], 1), "p99": round(cuts[98], 1)}


def _wait_for_grading(timeout_s: float) -> None:
    from grading.models import Response, ResponseStatus

    deadline = time.monotonic() + timeout_s
    waiting = (ResponseStatus.QUEUED, ResponseStatus.RUNNING)
    while time.monotonic() < deadline:
        if not Response.objects.filter(status__in=waiting).exists():
            return
        time.sleep(1)


def grading_figures() -> dict[str, Any]:
    """Submit -> graded of every code answer, and whether each was graded exactly once."""
    from grading.models import Attempt, Response, ResponseStatus
    from runner.models import JobRecord

    code = list(Response.objects.exclude(job_id="").select_related("attempt"))
    records = {r.job_id: r for r in JobRecord.objects.filter(job_id__in=[c.job_id for c in code])}
    graded = [c for c in code if c.status == ResponseStatus.GRADED and c.graded_at]
    waits = [(c.graded_at - c.attempt.submitted_at).total_seconds() * 1000 for c in graded]  # type: ignore[operator]  # filtered on graded_at above
    once = [c for c in graded if c.job_id in records and records[c.job_id].deliveries == 1]
    return {
        "attempts_submitted": Attempt.objects.exclude(submitted_at=None).count(),
        "code_answers": len(code),
        "code_answers_graded": len(graded),
        "code_answers_lost": len(code) - len(graded),
        "code_answers_run_more_than_once": sum(1 for r in records.values() if r.deliveries > 1),
        "every_code_answer_graded_exactly_once": len(once) == len(code) > 0,
        "submit_to_graded_ms": _percentiles(waits),
        "slowest_submit_to_graded_s": round(max(waits) / 1000, 2) if waits else None,
        "code_answers_right": sum(1 for c in graded if c.score == 1.0),
    }


def report(times_file: Path) -> dict[str, Any]:
    run = json.loads(times_file.read_text())
    times: dict[str, list[float]] = run["times"]
    total = sum(len(values) for values in times.values())
    figures: dict[str, Any] = {
        "requests": total,
        "requests_per_s": round(total / run["wall_s"], 1),
        "errors": sum(run["failures"].values()),
        "errors_by_request": run["failures"],
        "latency_ms": {name: _percentiles(values) for name, values in sorted(times.items())},
    }
    # Spans of several requests (a press of Run to its output), not counted as requests.
    for name, values in run.get("measures", {}).items():
        figures["latency_ms"][name] = _percentiles(values)
    _wait_for_grading(timeout_s=180)
    figures["grading"] = grading_figures()
    return figures


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    print(json.dumps(report(Path(sys.argv[1])), indent=2))

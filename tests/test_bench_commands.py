"""The benchmark commands run end to end on real services and print every figure they promise:
a benchmark that no longer runs is found here, not by whoever measures next."""

import json
import math
from io import StringIO

import pytest
from django.core.management import call_command

from grading.bench.scenario import BENCH_SLUG
from quizbank.models import Course

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _figures(command: str, *args: str) -> dict[str, object]:
    out = StringIO()
    call_command(command, "--json", *args, stdout=out)
    figures: dict[str, object] = json.loads(out.getvalue())
    return figures


def _positive(value: object) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def test_grading_bench_measures_submit_autosave_and_regrade_and_removes_its_course(
    redis_url: str,
) -> None:
    figures = _figures(
        "grading_bench",
        "--submits",
        "2",
        "--autosaves",
        "5",
        "--regrades",
        "3",
        "--broker",
        redis_url,
    )
    for name in ("submit_to_graded_p50_ms", "autosave_p50_ms", "autosave_p99_ms", "regrade_1000_s"):
        assert _positive(figures[name]), (name, figures)
    stages = figures["submit_stages_p50_ms"]
    assert isinstance(stages, dict)
    assert list(stages) == ["submit", "to_worker", "grading", "to_graded", "result_read"]
    # The worker's claim and finish are stamped in order; only the queue wait may be ~0.
    assert all(_positive(stages[name]) for name in ("submit", "grading", "result_read")), stages
    assert figures["regrades"] == 3
    assert figures["transport"] == "in-process"
    assert not Course.objects.filter(slug=BENCH_SLUG).exists()


def test_grading_bench_over_http_sends_the_student_through_gunicorn(redis_url: str) -> None:
    figures = _figures(
        "grading_bench",
        "--http",
        "--submits",
        "2",
        "--autosaves",
        "3",
        "--regrades",
        "0",
        "--broker",
        redis_url,
    )
    assert figures["transport"] == "http"
    for name in ("submit_to_graded_p50_ms", "autosave_p50_ms", "autosave_p99_ms"):
        assert _positive(figures[name]), (name, figures)
    assert not Course.objects.filter(slug=BENCH_SLUG).exists()


def test_runner_bench_times_warm_and_naive_grading_and_loses_nothing() -> None:
    figures = _figures(
        "runner_bench", "--seconds", "1", "--warm-jobs", "3", "--cold-jobs", "1", "--workers", "1"
    )
    for name in ("warm_p50_ms", "cold_p50_ms", "speedup_p50", "throughput_per_s"):
        assert _positive(figures[name]), (name, figures)
    assert figures["lost"] == 0
    assert _positive(figures["jobs"])

"""`make load` in small: the same script, locustfile and report against gunicorn, two grading
workers, PostgreSQL and Redis, with a handful of students for seconds instead of 300 for
minutes. It checks the harness still works end to end and that nothing is lost; the figures
themselves are for `make load` (docs/benchmarks.md), never asserted."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from tests.conftest import require_service

ROOT = Path(__file__).resolve().parents[2]
USERS = 6
# Not the tests' own broker database: the browser tests' session-long worker listens there
# and would grade this run's answers against the test database.
BROKER = os.environ.get("LOAD_SMOKE_BROKER_URL", "redis://127.0.0.1:6379/15")
pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_small_exam_over_http_loses_nothing(tmp_path: Path) -> None:
    require_service("PostgreSQL", "127.0.0.1", 5432)
    require_service("Redis", "127.0.0.1", 6379)
    database = f"vivabank_load_smoke_{os.getpid()}"
    env = {
        **os.environ,
        "LOAD_USERS": str(USERS),
        "LOAD_SPAWN_S": "3",
        "LOAD_EXAM_S": "8",
        "LOAD_SUBMIT_WINDOW_S": "4",
        "LOAD_SAVE_EVERY_S": "0.5",
        "LOAD_PORT": str(_free_port()),
        "LOAD_DB": database,
        "LOAD_BROKER": BROKER,
        "LOAD_OUT": str(tmp_path),
    }
    try:
        run = subprocess.run(  # noqa: S603 - our own script, fixed arguments
            ["bash", "scripts/load.sh"],  # noqa: S607 - bash from PATH, as `make load` runs it
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        subprocess.run(  # noqa: S603
            [
                "psql",
                "-h",
                "127.0.0.1",
                "-U",
                "postgres",
                "-qc",
                f"DROP DATABASE IF EXISTS {database} WITH (FORCE)",
            ],  # noqa: S607
            check=False,
            capture_output=True,
        )
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["errors"] == 0, report["errors_by_request"]
    assert {"login", "start", "autosave", "submit"} <= set(report["latency_ms"]), report
    grading = report["grading"]
    assert grading["attempts_submitted"] == USERS, grading
    # Each student saves a random answer every 0.25-0.75 s, so some may never save the code
    # one (its answer then has no job); every code answer saved is graded once, and right.
    assert grading["code_answers"] >= 1, grading
    assert grading["code_answers_lost"] == 0, grading
    assert grading["every_code_answer_graded_exactly_once"], grading
    assert grading["code_answers_right"] == grading["code_answers"], grading

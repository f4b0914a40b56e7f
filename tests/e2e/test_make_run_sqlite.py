"""`make run`'s embedded set-up under load, through scripts/run-dev.sh itself: SQLite, kombu's
filesystem broker, a real worker and beat. Twenty students submit code at once and every
answer is graded once; concurrent autosaves and submits get 200 or 409, never a 500.

The site runs in its own processes on a SQLite file in a temporary folder; this test reads
that file directly and never touches the PostgreSQL test database.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from config.celery_workers import stop_group

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
AT_ONCE = 20
# Twenty students submit code together; one more autosaves, one more submits concurrently,
# one submits after the worker was killed, and one starts a parameterised question.
STUDENTS = AT_ONCE + 4
# Generous for a loaded 2-core machine: the script migrates and loads the bank, and the worker
# imports torch in two zygotes, before anything is graded. No figure here is asserted.
START_TIMEOUT_S = 600.0
GRADE_TIMEOUT_S = 600.0
REQUEST_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class Site:
    group: int  # run-dev.sh's pid, and its process group
    port: int
    database: Path
    quiz: int
    variant_quiz: int
    tokens: list[str]
    source: str

    def call(self, method: str, path: str, token: str, body: Any = None, **headers: str) -> Any:
        """(status, parsed JSON body) of one API call signed in with `token`."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT_S)
        try:
            sent = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
            payload = None if body is None else json.dumps(body)
            connection.request(method, path, body=payload, headers={**sent, **headers})
            reply = connection.getresponse()
            data = reply.read()
        finally:
            connection.close()
        is_json = reply.getheader("Content-Type", "").startswith("application/json")
        return reply.status, json.loads(data) if is_json and data else data

    def rows(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        with closing(sqlite3.connect(self.database, timeout=60)) as db:
            return db.execute(query, params).fetchall()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _environment(folder: Path, port: int) -> dict[str, str]:
    ours = ("DATABASE_URL", "CELERY_", "VIVABANK_", "GRADING_", "SQLITE_")
    kept = {key: value for key, value in os.environ.items() if not key.startswith(ours)}
    return {
        **kept,
        "DEBUG": "true",
        "PORT": str(port),
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "VIVABANK_VAR_DIR": str(folder / "var"),
        # The sweeper would mend a lost grade; kept out of the way, this test shows none is lost.
        "GRADING_SWEEP_STUCK_EVERY_S": "86400",
    }


def _wait_until_serving(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"run-dev.sh exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2):
                return
        except OSError:
            time.sleep(1)
    pytest.fail(f"the site did not listen within {START_TIMEOUT_S} s:\n{log.read_text()[-4000:]}")


def _interruptible() -> None:
    # A shell that started pytest in the background ignores Ctrl-C in its children; undo that.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _stop(process: subprocess.Popen[bytes]) -> None:
    # Ctrl-C to the whole group, as a person stops `make run`.
    stop_group(process, first=signal.SIGINT, timeout_s=90)


def _populate(environment: dict[str, str]) -> dict[str, Any]:
    built = subprocess.run(
        [sys.executable, "-m", "tests.e2e.make_run_site", str(STUDENTS)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    data: dict[str, Any] = json.loads(built.stdout.strip().splitlines()[-1])
    return data


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """scripts/run-dev.sh (what `make run` runs) on a fresh SQLite file and broker folder."""
    folder = tmp_path_factory.mktemp("make-run")
    port = _free_port()
    environment = _environment(folder, port)
    log = folder / "run-dev.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            ["bash", "scripts/run-dev.sh"],
            cwd=ROOT,
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_interruptible,
        )
    try:
        _wait_until_serving(process, port, log)
        data = _populate(environment)
        yield Site(
            process.pid,
            port,
            folder / "db.sqlite3",
            data["quiz"],
            data["variant_quiz"],
            data["tokens"],
            data["source"],
        )
    finally:
        started = descendants(process.pid)
        _stop(process)
        _assert_all_stopped(started)


def _assert_all_stopped(started: dict[int, bytes]) -> None:
    """Ctrl-C stops everything `make run` started, the worker included (a worker whose pool
    children were signalled with it could wait for ever on their queue lock); any left is
    killed, then reported."""
    deadline = time.monotonic() + 30
    while (left := {pid for pid in started if Path(f"/proc/{pid}").exists()}) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.5)
    for pid in left:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"still running after Ctrl-C: {[started[pid] for pid in left]}"


def _at_once(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run every call in its own thread, all released together; their results in order."""
    gate = threading.Barrier(len(calls))

    def released(call: Callable[[], Any]) -> Any:
        gate.wait(timeout=REQUEST_TIMEOUT_S)
        return call()

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(released, calls))


def _start(site: Site, token: str) -> int:
    status, attempt = site.call("POST", f"/api/quizzes/{site.quiz}/attempts/", token)
    assert status == 201, attempt
    return int(attempt["id"])


def _start_and_save(site: Site, token: str) -> int:
    attempt = _start(site, token)
    body = {"version": 0, "answer": {"source": site.source}}
    status, saved = site.call("PUT", f"/api/attempts/{attempt}/responses/0/", token, body)
    assert status == 200, saved
    return attempt


def _code_responses(site: Site, attempts: list[int]) -> list[tuple[Any, ...]]:
    marks = ",".join("?" * len(attempts))
    return site.rows(
        f"SELECT attempt_id, status, score, job_id FROM grading_response "  # noqa: S608 (only ?s)
        f"WHERE attempt_id IN ({marks}) ORDER BY attempt_id",
        *attempts,
    )


def _wait_until_settled(site: Site, attempts: list[int]) -> list[tuple[Any, ...]]:
    deadline = time.monotonic() + GRADE_TIMEOUT_S
    while True:
        rows = _code_responses(site, attempts)
        waiting = [row for row in rows if row[1] in ("queued", "running")]
        if not waiting or time.monotonic() > deadline:
            return rows
        time.sleep(1)


def _job_records(site: Site, job_ids: list[str]) -> dict[str, tuple[Any, ...]]:
    marks = ",".join("?" * len(job_ids))
    rows = site.rows(
        f"SELECT job_id, state, status, score, deliveries FROM runner_jobrecord "  # noqa: S608
        f"WHERE job_id IN ({marks})",
        *job_ids,
    )
    return {row[0]: row[1:] for row in rows}


def test_twenty_code_answers_submitted_at_once_are_each_graded_once(site: Site) -> None:
    tokens = site.tokens[:AT_ONCE]
    attempts = _at_once([partial(_start_and_save, site, token) for token in tokens])

    replies = _at_once(
        [
            partial(site.call, "POST", f"/api/attempts/{attempt}/submit/", token)
            for token, attempt in zip(tokens, attempts, strict=True)
        ]
    )
    rows = _wait_until_settled(site, attempts)

    assert [status for status, _ in replies] == [200] * AT_ONCE
    assert [(row[1], row[2]) for row in rows] == [("graded", 1.0)] * AT_ONCE, rows
    job_ids = [row[3] for row in rows]
    assert len(set(job_ids)) == AT_ONCE
    records = _job_records(site, job_ids)
    # One record per job, finished once, by one delivery: nothing ran twice.
    assert records == {job_id: ("finished", "ok", 1.0, 1) for job_id in job_ids}
    graded = site.rows(
        f"SELECT COUNT(*) FROM grading_attempt WHERE status = 'graded' AND id IN "  # noqa: S608
        f"({','.join('?' * len(attempts))})",
        *attempts,
    )
    assert graded == [(AT_ONCE,)]


def test_twenty_concurrent_autosaves_of_one_answer_give_one_200_and_nineteen_409s(
    site: Site,
) -> None:
    token = site.tokens[AT_ONCE]
    attempt = _start(site, token)
    path = f"/api/attempts/{attempt}/responses/0/"

    replies = _at_once(
        [
            partial(site.call, "PUT", path, token, {"version": 0, "answer": {"source": f"#{n}"}})
            for n in range(AT_ONCE)
        ]
    )

    statuses = sorted(status for status, _ in replies)
    assert statuses == [200] + [409] * (AT_ONCE - 1), replies
    conflicts = [body for status, body in replies if status == 409]
    assert {body["error"]["code"] for body in conflicts} == {"stale_version"}
    assert site.rows("SELECT version FROM grading_response WHERE attempt_id = ?", attempt) == [(1,)]


def test_ten_concurrent_submits_of_one_attempt_all_answer_200_and_grade_it_once(
    site: Site,
) -> None:
    token = site.tokens[AT_ONCE + 1]
    attempt = _start_and_save(site, token)
    path = f"/api/attempts/{attempt}/submit/"

    replies = _at_once(
        [
            partial(site.call, "POST", path, token, None, **{"Idempotency-Key": f"tab-{n}"})
            for n in range(10)
        ]
    )
    rows = _wait_until_settled(site, [attempt])

    assert [status for status, _ in replies] == [200] * 10, replies
    assert len({body["submitted_at"] for _, body in replies}) == 1
    [(_, status, score, job_id)] = rows
    assert (status, score) == ("graded", 1.0)
    assert _job_records(site, [job_id]) == {job_id: ("finished", "ok", 1.0, 1)}


def _processes() -> dict[int, tuple[int, bytes]]:
    """Every process: pid -> (parent pid, command line)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # it ended meanwhile
        found[int(entry.name)] = (int(fields[1]), command)
    return found


def descendants(root: int) -> dict[int, bytes]:
    """The processes started by `root` (run-dev.sh), at any depth: pid -> command line. The
    worker and beat run in process groups of their own, so the group does not name them."""
    processes = _processes()
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in processes.items():
        children.setdefault(parent, []).append(pid)
    found, todo = {}, list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found[pid] = processes[pid][1]
        todo += children.get(pid, [])
    return found


def _worker_main_processes(root: int) -> set[int]:
    """The pids of the Celery worker main processes run-dev.sh started (not their pool
    children). Celery retitles its processes ("[celeryd: ...:MainProcess] ... (worker -Q ...)")."""
    workers = {
        pid
        for pid, command in descendants(root).items()
        if b"celery" in command and b"worker" in command
    }
    return {pid for pid in workers if _processes().get(pid, (0, b""))[0] not in workers}


def test_a_killed_worker_is_started_again_and_grades_the_next_answer(site: Site) -> None:
    [killed] = _worker_main_processes(site.group)
    os.kill(killed, signal.SIGKILL)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not (_worker_main_processes(site.group) - {killed}):
        assert time.monotonic() < deadline, "run-dev.sh did not start the worker again"
        time.sleep(1)

    token = site.tokens[AT_ONCE + 2]
    attempt = _start_and_save(site, token)
    status, _ = site.call("POST", f"/api/attempts/{attempt}/submit/", token)
    [(_, state, score, _)] = _wait_until_settled(site, [attempt])
    assert (status, state, score) == (200, "graded", 1.0)


def test_a_parameterised_question_starts_while_the_worker_generates_its_variant(
    site: Site,
) -> None:
    """The generator runs on the worker, which records its job in the same SQLite file: the
    start must not hold the write lock while it waits (it used to, and failed after 30 s)."""
    token = site.tokens[AT_ONCE + 3]
    status, attempt = site.call("POST", f"/api/quizzes/{site.variant_quiz}/attempts/", token)
    assert status == 201, attempt
    params = site.rows("SELECT params FROM grading_response WHERE attempt_id = ?", attempt["id"])
    assert json.loads(params[0][0]), "the variant's parameters are stored"

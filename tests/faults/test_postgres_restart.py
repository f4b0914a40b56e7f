"""PostgreSQL restarts while 50 students autosave over HTTP: each client gets either its
save or a 503 with Retry-After in the one error shape (never a 500), no acknowledged answer
is lost or reverted, and the service recovers by itself.

A private cluster on its own port is restarted, so the machine's PostgreSQL stays up.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.faults.servers import ROOT, PrivatePostgres, gunicorn, private_postgres

pytestmark = pytest.mark.integration
STUDENTS = 50
SAVE_FOR_S = 14.0
RESTART_AT_S = 4.0


@dataclass
class Student:
    token: str
    attempt: int = 0
    position: int = 0
    acknowledged: tuple[str, int] | None = None  # the last save answered 200: text, version
    in_flight: str | None = None
    statuses: Counter[int] = field(default_factory=Counter)
    bad_503s: list[str] = field(default_factory=list)


def _manage(database_url: str, *args: str) -> str:
    env = {**os.environ, "DATABASE_URL": database_url, "DEBUG": "true"}
    done = subprocess.run(  # noqa: S603 (our interpreter, fixed arguments)
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def postgres() -> Iterator[PrivatePostgres]:
    folder = Path(tempfile.mkdtemp(prefix="vivabank-pg-"))
    try:
        with private_postgres(folder) as server:
            yield server
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _call(url: str, token: str, method: str, body: Any = None) -> tuple[int, dict[str, str], Any]:
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers, method=method)  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:  # noqa: S310 (loopback)
            return reply.status, dict(reply.headers), json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


def _start(base: str, quiz_id: int, student: Student) -> None:
    status, _, attempt = _call(f"{base}/api/quizzes/{quiz_id}/attempts/", student.token, "POST")
    assert status == 201, attempt
    student.attempt = attempt["id"]
    kinds = {r["question"]["type"]: r["position"] for r in attempt["responses"]}
    student.position = kinds["short_text"]


def _save_once(base: str, student: Student, text: str, version: int) -> int:
    """One autosave; the version to send next."""
    url = f"{base}/api/attempts/{student.attempt}/responses/{student.position}/"
    student.in_flight = text
    try:
        status, headers, body = _call(
            url, student.token, "PUT", {"answer": {"text": text}, "version": version}
        )
    except (ConnectionError, urllib.error.URLError):
        student.statuses[0] += 1
        return version
    student.statuses[status] += 1
    if status == 200:
        student.acknowledged, student.in_flight = (text, body["version"]), None
        return int(body["version"])
    if status == 503 and (
        headers.get("Retry-After") != "5" or set(body["error"]) != {"code", "message", "fields"}
    ):
        student.bad_503s.append(json.dumps(body))
    if status == 409:  # the lost reply's save did happen: carry on from the stored version
        return int(body["error"]["fields"]["current_version"][0])
    return version


def _autosave_until(base: str, student: Student, until: float) -> None:
    version, n = 0, 0
    while time.monotonic() < until:
        n += 1
        version = _save_once(base, student, f"answer {n}", version)
        time.sleep(0.2)


def _stored(postgres: PrivatePostgres) -> dict[int, tuple[str, int]]:
    query = (
        "SELECT attempt_id, answer->>'text', version FROM grading_response WHERE answer IS NOT NULL"
    )
    out = subprocess.run(  # noqa: S603 (fixed argv)
        ["/usr/bin/psql", postgres.url("vivabank"), "-tAF,", "-c", query],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = [line.split(",") for line in out.splitlines() if line]
    return {int(a): (text, int(v)) for a, text, v in rows}


def _version(student: Student, stored: dict[int, tuple[str, int]]) -> int:
    return stored[student.attempt][1]


def test_autosaves_through_a_postgres_restart_lose_nothing_and_recover(
    postgres: PrivatePostgres,
) -> None:
    subprocess.run(
        [
            "/usr/bin/createdb",
            "-h",
            "127.0.0.1",
            "-p",
            str(postgres.port),
            "-U",
            "postgres",
            "vivabank",
        ],
        check=True,
    )  # noqa: S603
    url = postgres.url("vivabank")
    _manage(url, "manage.py", "migrate", "--noinput", "-v0")
    _manage(url, "manage.py", "load_demo")
    seeded = json.loads(_manage(url, "-m", "tests.load.seed", str(STUDENTS)))
    students = [Student(token) for token in seeded["tokens"]]

    with gunicorn(
        workers=2, env={"DATABASE_URL": url, "CELERY_BROKER_URL": "redis://127.0.0.1:6379/11"}
    ) as (base, _):
        for student in students:
            _start(base, seeded["quiz_id"], student)
        until = time.monotonic() + SAVE_FOR_S
        threads = [
            threading.Thread(target=_autosave_until, args=(base, s, until)) for s in students
        ]
        for thread in threads:
            thread.start()
        time.sleep(RESTART_AT_S)
        postgres.pg_ctl("restart", "-m", "fast")
        for thread in threads:
            thread.join()
        during = _stored(postgres)
        sent = [(s.acknowledged, s.in_flight) for s in students]
        recovered = [_save_once(base, s, "after", _version(s, during)) for s in students]

    statuses = sum((s.statuses for s in students), Counter())
    assert set(statuses) <= {0, 200, 409, 503}, statuses
    assert statuses[503] + statuses[0] > 0, "the restart was never noticed: the test proves nothing"
    assert not [bad for s in students for bad in s.bad_503s]
    # Each stored answer is the last acknowledged save, or a later one whose reply was lost.
    for student, (acknowledged, in_flight) in zip(students, sent, strict=True):
        assert acknowledged is not None
        text, version = during[student.attempt]
        assert text in (acknowledged[0], in_flight), (text, student)
        assert version >= acknowledged[1]
    assert all(s.acknowledged == ("after", v) for s, v in zip(students, recovered, strict=True))
    stored = _stored(postgres)
    for student in students:
        assert stored[student.attempt][0] == "after"

"""The measured loops: submit -> graded through the API, and sequential autosaves."""

import statistics
import time
from typing import Any, Protocol

from django.db import connection
from rest_framework.test import APIClient

from grading.bench.scenario import SOURCE, Scenario
from grading.models import Response, ResponseStatus
from runner import api as runner_api

_DONE = (ResponseStatus.GRADED, ResponseStatus.ERROR)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[index]


class BenchClient(Protocol):
    """The calls the bench makes: an in-process `APIClient` or `grading.bench.http.HttpClient`."""

    def post(self, path: str, data: Any = None, format: str = "json") -> Any: ...  # noqa: A002

    def put(self, path: str, data: Any = None, format: str = "json") -> Any: ...  # noqa: A002

    def get(self, path: str) -> Any: ...


def client_for(scenario: Scenario) -> APIClient:
    client = APIClient(SERVER_NAME="localhost")
    client.force_authenticate(scenario.student)
    return client


def _start_and_save(client: BenchClient, scenario: Scenario) -> int:
    attempt: dict[str, Any] = client.post(f"/api/quizzes/{scenario.quiz.pk}/attempts/").json()
    reply = client.put(
        f"/api/attempts/{attempt['id']}/responses/0/",
        {"answer": {"source": SOURCE}, "version": 0},
        format="json",
    )
    if reply.status_code != 200:
        raise RuntimeError(f"autosave failed: {reply.content!r}")
    return int(attempt["id"])


# Where a submit's time goes, from one clock (every process runs on this host): the request up
# to the attempt's submit time, then to a worker's claim of the job, the grading, the result
# applied and seen by the poll, and the result read back through the API.
STAGES = ("submit", "to_worker", "grading", "to_graded", "result_read")


def submit_to_graded(
    client: BenchClient, scenario: Scenario, timeout_s: float = 60.0
) -> dict[str, float]:
    """Milliseconds from POST submit until the result endpoint shows the code answer graded
    (`total`), and the stages in between (`STAGES`)."""
    attempt = _start_and_save(client, scenario)
    began = time.time()
    client.post(f"/api/attempts/{attempt}/submit/")
    # Wait on a cheap status read, then read the grade through the API; the clock stops when
    # that read returns. Polled every millisecond, so the statement is built once: an ORM
    # query or an API poll each time would take a share of the two cores from the workers.
    rows = Response.objects.filter(attempt_id=attempt, position=0)
    status_sql, status_params = rows.values_list("status").query.sql_with_params()
    with connection.cursor() as cursor:
        while True:
            cursor.execute(status_sql, status_params)
            if cursor.fetchone()[0] in _DONE:
                break
            if time.time() - began > timeout_s:
                raise RuntimeError(f"attempt {attempt} was not graded in {timeout_s} s")
            time.sleep(0.001)
    seen = time.time()
    result = client.get(f"/api/attempts/{attempt}/result/").json()
    ended = time.time()
    if result["questions"][0]["status"] != "graded":
        raise RuntimeError(f"grading failed: {result}")
    response = rows.select_related("attempt").get()
    job = runner_api.job_progress(response.job_id)
    if response.attempt.submitted_at is None or job.claimed_at is None or job.finished_at is None:
        raise RuntimeError(f"attempt {attempt} is graded without its job's times: {job}")
    marks = [
        began,
        response.attempt.submitted_at.timestamp(),
        job.claimed_at.timestamp(),
        job.finished_at.timestamp(),
        seen,
        ended,
    ]
    stages = {
        name: (end - start) * 1000
        for name, start, end in zip(STAGES, marks[:-1], marks[1:], strict=True)
    }
    return {"total": (ended - began) * 1000, **stages}


def autosave_ms(client: BenchClient, scenario: Scenario, count: int) -> list[float]:
    """Sequential autosaves of one response, each with the version the last one returned."""
    attempt: dict[str, Any] = client.post(f"/api/quizzes/{scenario.quiz.pk}/attempts/").json()
    timings, version = [], 0
    for index in range(count):
        body = {"answer": {"source": f"{SOURCE}# edit {index}\n"}, "version": version}
        began = time.perf_counter()
        reply = client.put(f"/api/attempts/{attempt['id']}/responses/0/", body, format="json")
        timings.append((time.perf_counter() - began) * 1000)
        version = int(reply.json()["version"])
    client.post(f"/api/attempts/{attempt['id']}/submit/")
    return timings


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(statistics.median(values), 2),
        "p95": round(percentile(values, 0.95), 2),
        "p99": round(percentile(values, 0.99), 2),
    }

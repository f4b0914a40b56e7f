"""The web tier's entry points: queue a job on `cpu`, wait for the worker's stored result."""

import time
from typing import Any

import pytest
import time_machine
from django.core.cache import cache

from config.celery_workers import use_broker
from grading.services.code_runs import TRY_IT_LIMITS
from runner.api import (
    GeneratorFailed,
    Limits,
    NoWorkerAnswered,
    Status,
    request_generator,
    request_run,
    run_patience_s,
)
from runner.models import JobKind, JobRecord, JobState
from runner.supervisor import Supervisor
from tests.grading.factories import api_as, new_author

pytestmark = pytest.mark.django_db

GENERATOR = "def generate(rng):\n    return {'n': rng.randint(1, 10**9)}\n"


@pytest.mark.usefixtures("celery_eager")
def test_a_requested_run_returns_the_result_the_task_stored(supervisor: Supervisor) -> None:
    result = request_run("print(6 * 7)", Limits(time_s=5))
    assert result.status == Status.OK
    assert result.stdout == "42\n"
    record = JobRecord.objects.get()
    assert record.kind == JobKind.RUN
    assert record.state == JobState.FINISHED
    assert record.result == result.to_dict()


@pytest.mark.usefixtures("celery_eager")
def test_a_requested_generator_returns_its_dict_and_stores_it(supervisor: Supervisor) -> None:
    first = request_generator(GENERATOR, 7)
    assert request_generator(GENERATOR, 7) == first
    assert request_generator(GENERATOR, 8) != first
    records = JobRecord.objects.filter(kind=JobKind.GENERATE)
    assert records.count() == 3
    assert {r.status for r in records} == {"ok"}
    assert {"status": "ok", "value": first} in [r.result for r in records]


@pytest.mark.usefixtures("celery_eager")
def test_a_requested_generator_that_fails_raises_with_the_reason(supervisor: Supervisor) -> None:
    with pytest.raises(GeneratorFailed, match="must return a dict, not int"):
        request_generator("def generate(rng):\n    return 3\n", 1)
    assert JobRecord.objects.get().status == "error"


def test_a_run_nobody_answers_raises_an_error_that_says_so(redis_url: str) -> None:
    use_broker(redis_url)  # a real broker with no worker on it: the job is queued, never run
    with pytest.raises(NoWorkerAnswered, match=r"^no grading worker answered within 0\.3 s"):
        request_run("print(1)", timeout_s=0.3)
    assert not JobRecord.objects.exists()


def test_a_generator_nobody_answers_raises_a_clear_error(redis_url: str) -> None:
    use_broker(redis_url)
    with pytest.raises(GeneratorFailed, match=r"no grading worker answered within 0\.3 s"):
        request_generator(GENERATOR, 1, timeout_s=0.3)
    assert not JobRecord.objects.exists()


def test_the_api_run_nobody_answers_is_a_503_to_retry(redis_url: str, settings: Any) -> None:
    use_broker(redis_url)
    settings.CODE_RUN_WAIT_S = 0.3
    reply = api_as(new_author()).post("/api/code-runs/", {"code": "print(1)"}, format="json")
    assert reply.status_code == 503
    assert reply.json()["error"]["code"] == "runner_busy"
    assert "0.3 s" in reply.json()["error"]["message"]
    assert int(reply["Retry-After"]) > 0


def test_a_user_waits_on_one_api_run_at_a_time(redis_url: str) -> None:
    """A waiting run holds a web process: a second one from the same user is refused at
    once, before anything is queued."""
    use_broker(redis_url)
    busy = new_author()
    cache.add(f"api:code-run-waiting:{busy.pk}", 1, timeout=30)  # its first run still waits
    try:
        refused = api_as(busy).post("/api/code-runs/", {"code": "print(1)"}, format="json")
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "code_run_in_progress"
        assert refused["Retry-After"]
        assert not JobRecord.objects.exists()
    finally:
        cache.delete(f"api:code-run-waiting:{busy.pk}")


def test_runs_past_the_sites_waiting_cap_are_a_503_at_once(redis_url: str, settings: Any) -> None:
    """Waiting runs hold web processes: past CODE_RUN_MAX_WAITING, the site says so at once
    and queues nothing, so the other processes keep serving."""
    use_broker(redis_url)
    settings.CODE_RUN_MAX_WAITING = 2
    cache.set("api:code-runs-waiting", 2, timeout=60)  # two other users' runs are waiting
    try:
        refused = api_as(new_author()).post("/api/code-runs/", {"code": "print(1)"}, format="json")
        assert refused.status_code == 503
        assert refused.json()["error"]["code"] == "runner_busy"
        assert refused["Retry-After"]
        assert not JobRecord.objects.exists()
        assert cache.get("api:code-runs-waiting") == 2  # its own place was given back
    finally:
        cache.delete("api:code-runs-waiting")


@pytest.mark.usefixtures("celery_eager")
def test_an_api_run_not_waited_for_is_polled_by_its_starter_only(supervisor: Supervisor) -> None:
    owner, other = new_author(), new_author()
    started = api_as(owner).post(
        "/api/code-runs/", {"code": "print(6 * 7)", "wait": False}, format="json"
    )
    assert started.status_code == 202
    job = started.json()["job"]
    polled = api_as(owner).get(f"/api/code-runs/{job}/").json()
    assert (polled["finished"], polled["status"], polled["stdout"]) == (True, "ok", "42\n")
    for stranger, handle in (
        (other, job),  # another user's run
        (owner, job[:-1] + ("0" if job[-1] != "0" else "1")),  # a forged signature
        (owner, job.rpartition("-")[0]),  # the runner's bare id
        (owner, f"{job}{'a' * 64}"),  # too long to be a handle
    ):
        refused = api_as(stranger).get(f"/api/code-runs/{handle}/")
        assert (refused.status_code, refused.json()["error"]["code"]) == (404, "not_found")


def test_an_api_run_not_waited_for_answers_at_once_and_holds_nothing(redis_url: str) -> None:
    """No worker: the queued run still answers 202 at once, takes none of the waiting
    places, and its poll says it has not finished."""
    use_broker(redis_url)
    user = new_author()
    started = api_as(user).post(
        "/api/code-runs/", {"code": "print(1)", "wait": False}, format="json"
    )
    assert started.status_code == 202
    assert cache.get(f"api:code-run-waiting:{user.pk}") is None
    assert cache.get("api:code-runs-waiting") in (None, 0)
    assert api_as(user).get(f"/api/code-runs/{started.json()['job']}/").json() == {
        "finished": False
    }


def test_a_queued_run_no_worker_finished_in_time_is_reported_lost(redis_url: str) -> None:
    """Still unfinished past the queue's expiry and the task's hard time limit, the run can
    never finish (dropped unrun, or its worker stopped): the poll says so instead of
    "not finished" for ever."""
    use_broker(redis_url)
    user = new_author()
    job = (
        api_as(user)
        .post("/api/code-runs/", {"code": "print(1)", "wait": False}, format="json")
        .json()["job"]
    )
    patience = run_patience_s(TRY_IT_LIMITS)
    with time_machine.travel(time.time() + patience - 5):
        assert api_as(user).get(f"/api/code-runs/{job}/").json() == {"finished": False}
    with time_machine.travel(time.time() + patience + 5):
        lost = api_as(user).get(f"/api/code-runs/{job}/").json()
    assert (lost["finished"], lost["status"], lost["exit_code"]) == (True, "internal", None)
    assert "no worker finished this run" in lost["message"]


def test_an_oversized_queued_run_is_refused_before_anything_is_queued(
    redis_url: str, settings: Any
) -> None:
    use_broker(redis_url)
    settings.GRADING_MAX_ANSWER_BYTES = 10
    reply = api_as(new_author()).post(
        "/api/code-runs/", {"code": "print('a long line')", "wait": False}, format="json"
    )
    assert (reply.status_code, reply.json()["error"]["code"]) == (413, "answer_too_large")
    assert list(reply.json()["error"]["fields"]) == ["code"]
    not_text = api_as(new_author()).post("/api/code-runs/", {"code": 5}, format="json")
    assert (not_text.status_code, not_text.json()["error"]["fields"]) == (
        400,
        {"code": ["Not a valid string."]},
    )


def test_a_user_has_one_queued_run_unfinished_at_a_time(redis_url: str) -> None:
    """Runs share the `cpu` queue with grading: a student who queued runs back to back (no
    worker takes them here) would hold every worker. The second waits for the first's output,
    and so does a run waited for; another student's run is queued meanwhile."""
    use_broker(redis_url)
    busy = new_author()
    first = api_as(busy).post(
        "/api/code-runs/", {"code": "while True: pass", "wait": False}, format="json"
    )
    assert first.status_code == 202
    for wait in (False, True):
        refused = api_as(busy).post(
            "/api/code-runs/", {"code": "print(1)", "wait": wait}, format="json"
        )
        assert (refused.status_code, refused.json()["error"]["code"]) == (
            429,
            "code_run_in_progress",
        )
        assert refused["Retry-After"]
    other = api_as(new_author()).post(
        "/api/code-runs/", {"code": "print(1)", "wait": False}, format="json"
    )
    assert other.status_code == 202
    # Once the first run can never finish (its poll says it was lost), the place is free.
    with time_machine.travel(time.time() + run_patience_s(TRY_IT_LIMITS) + 5):
        again = api_as(busy).post(
            "/api/code-runs/", {"code": "print(1)", "wait": False}, format="json"
        )
    assert again.status_code == 202


@pytest.mark.usefixtures("celery_eager")
def test_a_queued_run_that_finished_lets_its_user_queue_the_next(supervisor: Supervisor) -> None:
    user = new_author()
    for _ in range(3):
        started = api_as(user).post(
            "/api/code-runs/", {"code": "print(6 * 7)", "wait": False}, format="json"
        )
        assert started.status_code == 202
        assert api_as(user).get(f"/api/code-runs/{started.json()['job']}/").json()["finished"]

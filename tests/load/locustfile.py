"""An exam over HTTP: students sign in, start the demo quiz within the first minute, autosave
every few seconds, press Run twice and submit within the same minute at the end.

`make load` runs it headless (scripts/load.sh); every request's time is kept here and written
to $LOAD_TIMES (JSON) when the run stops, for tests/load/report.py. Settings (environment):
LOAD_QUIZ_ID, LOAD_PASSWORD, LOAD_SPAWN_S (60: the minute students start in), LOAD_EXAM_S
(seconds from the first start to the deadline), LOAD_SUBMIT_WINDOW_S (50: the submits spread
over this many seconds after it), LOAD_SAVE_EVERY_S (4).
"""

import json
import os
import random
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from locust import FastHttpUser, events, task
from locust.exception import StopUser

QUIZ_ID = int(os.environ.get("LOAD_QUIZ_ID", "1"))
PASSWORD = os.environ.get("LOAD_PASSWORD", "load-student-pass")
SPAWN_S = float(os.environ.get("LOAD_SPAWN_S", "60"))
EXAM_S = float(os.environ.get("LOAD_EXAM_S", "150"))
SUBMIT_WINDOW_S = float(os.environ.get("LOAD_SUBMIT_WINDOW_S", "50"))
SAVE_EVERY_S = float(os.environ.get("LOAD_SAVE_EVERY_S", "4"))
USERS = int(os.environ.get("LOAD_USERS", "300"))
ROOT = Path(__file__).resolve().parents[2]
SOURCE = (
    ROOT / "fixtures/banks/pytorch-fundamentals/tensor-operations/softmax-rows/reference.py"
).read_text()
# What each question type's autosave sends (the demo quiz's positions 0-7).
ANSWERS: dict[str, Any] = {
    "single_choice": {"choice": 0},
    "multiple_choice": {"choices": [0, 1]},
    "true_false": {"value": False},
    "numeric": {"value": 13},
    "short_text": {"text": "grad_fn"},
    "code": {"source": SOURCE},
    "viva": {"text": "backward() adds into .grad, so gradients from several calls sum."},
}
TIMES: dict[str, list[float]] = defaultdict(list)
MEASURES: dict[str, list[float]] = defaultdict(list)
FAILURES: dict[str, int] = defaultdict(int)
STARTED = time.monotonic()
# The quiz page's poll of a Run (assets/js/quiz.js): soon at first, then every half second.
RUN_POLL_PAUSES_S = (0.1, 0.2, 0.4, *([0.5] * 60))
_next_user = [0]


def _keep_time(
    request_type: str, name: str, response_time: float, exception: object, **_: Any
) -> None:
    if exception is not None:
        FAILURES[name] += 1
    elif request_type == "RUN":  # a press of Run to its output: several requests, not one
        MEASURES[name].append(response_time)
    else:
        TIMES[name].append(response_time)
        if name == "autosave":
            MEASURES[f"autosave ({_phase()})"].append(response_time)


def _phase() -> str:
    """Where in the exam this moment is: the students' start minute, the quiet middle, or
    the submits at the end."""
    elapsed = time.monotonic() - STARTED
    if elapsed < SPAWN_S:
        return "start minute"
    return "middle" if elapsed < EXAM_S else "submits"


def _write_times(**_: Any) -> None:
    target = os.environ.get("LOAD_TIMES")
    if target:
        wall_s = time.monotonic() - STARTED
        Path(target).write_text(
            json.dumps(
                {"times": TIMES, "measures": MEASURES, "failures": FAILURES, "wall_s": wall_s}
            )
        )


# locust's EventHook is untyped.
events.request.add_listener(_keep_time)  # type: ignore[no-untyped-call]
events.quitting.add_listener(_write_times)  # type: ignore[no-untyped-call]


class Student(FastHttpUser):
    """One student's exam: sign in, start, autosave, Run twice, submit at the deadline."""

    wait_time = staticmethod(lambda: random.uniform(0.5, 1.5) * SAVE_EVERY_S)  # noqa: S311

    def on_start(self) -> None:
        # A user locust starts again (after an error) signs in as an existing student.
        index = _next_user[0] % USERS
        _next_user[0] += 1
        self.deadline = STARTED + EXAM_S + random.uniform(0, SUBMIT_WINDOW_S)  # noqa: S311
        body = {"username": f"load{index:04d}", "password": PASSWORD}
        token = self.client.post("/api/auth/token/", json=body, name="login").json()["token"]
        self.auth = {"Authorization": f"Token {token}"}
        attempt = self._start()
        self.attempt = attempt["id"]
        self.kinds = {r["position"]: r["question"]["type"] for r in attempt["responses"]}
        self.versions = dict.fromkeys(self.kinds, 0)
        self.runs_left = 2

    def _start(self) -> Any:
        """Start (or resume) the attempt; a 503 is retried after its Retry-After, as the page
        does (and still counted as an error)."""
        url = f"/api/quizzes/{QUIZ_ID}/attempts/"
        for _ in range(5):
            reply = self.client.post(url, headers=self.auth, name="start")
            if reply.status_code != 503:
                break
            retry_after = reply.headers.get("Retry-After") if reply.headers else None
            time.sleep(float(str(retry_after or "5")))
        return reply.json()

    def _autosave(self, position: int) -> None:
        body = {"answer": ANSWERS[self.kinds[position]], "version": self.versions[position]}
        url = f"/api/attempts/{self.attempt}/responses/{position}/"
        with self.client.put(
            url, json=body, headers=self.auth, name="autosave", catch_response=True
        ) as reply:
            if reply.status_code == 200:
                self.versions[position] = reply.json()["version"]
            else:
                reply.failure(f"autosave answered {reply.status_code}: {reply.text[:200]}")

    def _run(self) -> None:
        """Run as the quiz page does it: queue the code (202), then poll its job at the
        page's pace until the output is there; "run" is the time from the press to the output."""
        code = SOURCE + "\nprint(softmax_rows(__import__('torch').ones(2, 3)))\n"
        # A student's run belongs to a code question of their open attempt.
        position = next(at for at, kind in self.kinds.items() if kind == "code")
        body = {"code": code, "attempt": self.attempt, "position": position}
        pressed = time.monotonic()
        with self.client.post(
            "/api/code-runs/",
            json={**body, "wait": False},
            headers=self.auth,
            name="run (queue)",
            catch_response=True,
        ) as reply:
            if reply.status_code != 202:
                reply.failure(f"run answered {reply.status_code}: {reply.text[:200]}")
                return
            job = reply.json()["job"]
        for pause in RUN_POLL_PAUSES_S:
            time.sleep(pause)
            with self.client.get(
                f"/api/code-runs/{job}/", headers=self.auth, name="run (poll)", catch_response=True
            ) as polled:
                if polled.status_code != 200:
                    polled.failure(f"poll answered {polled.status_code}: {polled.text[:200]}")
                    return
                output = polled.json()
            if output["finished"]:
                failed = None if output["status"] == "ok" else RuntimeError(output["message"])
                self._record("run", (time.monotonic() - pressed) * 1000, failed)
                return
        self._record("run", (time.monotonic() - pressed) * 1000, RuntimeError("no output"))

    def _record(self, name: str, elapsed_ms: float, exception: Exception | None) -> None:
        self.environment.events.request.fire(
            request_type="RUN",
            name=name,
            response_time=elapsed_ms,
            response_length=0,
            exception=exception,
            context={},
        )

    def _submit(self) -> None:
        url = f"/api/attempts/{self.attempt}/submit/"
        headers = {**self.auth, "Idempotency-Key": f"load-{self.attempt}"}
        self.client.post(url, headers=headers, name="submit")
        raise StopUser

    @task
    def exam_step(self) -> None:
        if time.monotonic() >= self.deadline:
            self._submit()
        if self.runs_left and random.random() < 0.1:  # noqa: S311
            self.runs_left -= 1
            self._run()
            return
        self._autosave(random.choice(list(self.kinds)))  # noqa: S311

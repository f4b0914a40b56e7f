""" "Try it" runs: a worker runs a student's code in the sandbox, without grading.

Queued runs (the quiz page's Run, and the API with `wait: false`) return a handle at once
that only their starter can poll: the runner's job id signed with the user's id, so any web
process can check it without shared state. A run the API waits for holds a web process, so
the whole site holds at most CODE_RUN_MAX_WAITING of them. Each user has at most one run
unfinished, queued or waited for: runs share the `cpu` queue with grading, so one student's
runs queued back to back would delay everyone's grades and runs. Both counts are kept in the
shared cache (with the default per-process cache, per process).

A student runs code only for a code question of their own attempt while it takes answers;
course staff may also run code outside any attempt, to try it while writing a question.
"""

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import datetime

from django.conf import settings
from django.core.cache import cache
from django.utils.crypto import constant_time_compare, salted_hmac

from config.queries import unique_or_none
from grading.errors import (
    AnswerTooLarge,
    CodeRunInProgress,
    CodeRunNotFound,
    NoSuchPosition,
    NotACodeQuestion,
    RunnerBusy,
)
from grading.models import Attempt, Response
from grading.services.responses import attempt_check_open
from runner import api as runner_api

_SITE_KEY = "api:code-runs-waiting"
TRY_IT_LIMITS = runner_api.Limits(time_s=5.0)
_SIGNATURE_CHARS = 20
# The runner's "run-" and a UUID, the start's Unix second and the signature, joined by dashes;
# longer is no handle of ours.
HANDLE_MAX = 80
RUN_IN_PROGRESS = "Another run of yours is still going; wait for its output."
LOST_RUN = "no worker finished this run (a worker stopped, or none was free in time); run it again"


def code_run_source_check(source: str) -> None:
    """AnswerTooLarge when `source` is over the answer size limit."""
    limit = int(settings.GRADING_MAX_ANSWER_BYTES)
    if len(source.encode()) > limit:
        raise AnswerTooLarge(
            f"The source is over the limit of {limit:,} bytes.",
            fields={"code": [f"at most {limit:,} bytes"]},
        )


def code_run_attempt_check(*, attempt: Attempt, position: int, now: datetime, address: str) -> None:
    """Refuse a run within `attempt` unless the attempt takes answers now (autosave's rule)
    and its question at `position` is a code question."""
    attempt_check_open(
        attempt=attempt,
        now=now,
        address=address,
        refused=f"attempt {attempt.pk} runs no more code",
        closed=f"attempt {attempt.pk} runs no more code",
    )
    response = unique_or_none(
        Response.objects.select_related("question_version").filter(
            attempt=attempt, position=position
        )
    )
    if response is None:
        raise NoSuchPosition(
            f"Attempt {attempt.pk} has no question at position {position}.",
            fields={"position": ["No such question in this attempt."]},
        )
    kind = response.question_version.content.get("type")
    if kind != "code":
        raise NotACodeQuestion(
            f"The question at position {position} of attempt {attempt.pk} is a {kind} "
            "question; only a code question's code can be run.",
            fields={"position": ["Not a code question."]},
        )


def _signature(job_id: str, user_id: int, started: str) -> str:
    digest = salted_hmac("vivabank.code-run", f"{job_id}:{user_id}:{started}", algorithm="sha256")
    return digest.hexdigest()[:_SIGNATURE_CHARS]


def _queued_key(user_id: int) -> str:
    return f"api:code-run-queued:{user_id}"


def _waiting_key(user_id: int) -> str:
    return f"api:code-run-waiting:{user_id}"


def _unfinished(job_id: str | None) -> bool:
    """Whether the queued run `job_id` names (or one being queued: "") has no output yet."""
    return job_id == "" or (job_id is not None and runner_api.run_result(job_id) is None)


def _claim_queued_place(user_id: int, hold_s: int) -> None:
    """Let the user queue a run only when no run of theirs is unfinished: the queue is shared
    with grading, and runs queued back to back would hold the workers that grade others'
    answers. CodeRunInProgress otherwise; the place is kept as "" until the job id is known."""
    key = _queued_key(user_id)
    if cache.get(_waiting_key(user_id)) is not None:
        raise CodeRunInProgress(RUN_IN_PROGRESS)
    if cache.add(key, "", timeout=hold_s):
        return
    previous = cache.get(key)
    if previous is None:  # expired since the add: the place is free again
        if cache.add(key, "", timeout=hold_s):
            return
        raise CodeRunInProgress(RUN_IN_PROGRESS)
    # Of the requests that find the previous run finished, only the first takes its place.
    if _unfinished(previous) or not cache.add(f"{key}:after:{previous}", 1, timeout=hold_s):
        raise CodeRunInProgress(RUN_IN_PROGRESS)
    cache.set(key, "", timeout=hold_s)


def code_run_start(*, user_id: int, source: str) -> str:
    """Queue `source` for a worker and return, at once, a handle only `user_id` can poll;
    CodeRunInProgress while the user's last run has not finished."""
    code_run_source_check(source)
    hold_s = math.ceil(runner_api.run_patience_s(TRY_IT_LIMITS))
    _claim_queued_place(user_id, hold_s)
    try:
        job_id = runner_api.start_run(source, TRY_IT_LIMITS)
    except BaseException:
        cache.delete(_queued_key(user_id))
        raise
    cache.set(_queued_key(user_id), job_id, timeout=hold_s)
    started = str(int(time.time()))
    return f"{job_id}-{started}-{_signature(job_id, user_id, started)}"


def code_run_poll(*, user_id: int, handle: str) -> runner_api.RunResult | None:
    """The output of the run `handle` names once a worker finished it, None until then, and
    an `internal` result once it never can (its worker stopped, or none took it in time);
    CodeRunNotFound for a handle that is not one `code_run_start` gave this user."""
    named, _, signature = handle.rpartition("-")
    job_id, _, started = named.rpartition("-")
    if (
        len(handle) > HANDLE_MAX
        or not started.isdigit()
        or not constant_time_compare(signature, _signature(job_id, user_id, started))
    ):
        raise CodeRunNotFound("No such run.")
    result = runner_api.run_result(job_id)
    if result is None and time.time() > int(started) + runner_api.run_patience_s(TRY_IT_LIMITS):
        return runner_api.RunResult(runner_api.Status.INTERNAL, None, message=LOST_RUN)
    return result


@contextmanager
def _one_per_user(user_id: int, hold_s: int) -> Iterator[None]:
    key = _waiting_key(user_id)
    if _unfinished(cache.get(_queued_key(user_id))) or not cache.add(key, 1, timeout=hold_s):
        raise CodeRunInProgress(RUN_IN_PROGRESS)
    try:
        yield
    finally:
        cache.delete(key)


@contextmanager
def _site_slot(hold_s: int) -> Iterator[None]:
    # The count expires with its key, so a process killed mid-wait leaks it for hold_s at most.
    cache.add(_SITE_KEY, 0, timeout=hold_s)
    try:
        waiting = cache.incr(_SITE_KEY)
    except ValueError:  # expired between the two calls
        cache.add(_SITE_KEY, 1, timeout=hold_s)
        waiting = 1
    try:
        if waiting > int(settings.CODE_RUN_MAX_WAITING):
            raise RunnerBusy("Too many runs are waiting for a code runner; try again shortly.")
        yield
    finally:
        with suppress(ValueError):  # the key expired meanwhile: nothing left to give back
            cache.decr(_SITE_KEY)


def code_run_wait(*, user_id: int, source: str) -> runner_api.RunResult:
    """Run `source` on a worker and wait for its output; CodeRunInProgress while the user's
    last run still waits, RunnerBusy when too many wait or no runner finished it in time."""
    code_run_source_check(source)
    wait_s = float(settings.CODE_RUN_WAIT_S)
    hold_s = int(wait_s) + 30
    with _one_per_user(user_id, hold_s), _site_slot(hold_s):
        try:
            return runner_api.request_run(source, TRY_IT_LIMITS, timeout_s=wait_s)
        except runner_api.NoWorkerAnswered as error:
            raise RunnerBusy(f"The code runners are busy: {error}.") from error

"""A "try it" run the API waits for: it holds a web process while it waits, so each user
holds at most one, and the whole site at most CODE_RUN_MAX_WAITING (counted in the shared
cache; with the default per-process cache, per process). The quiz page's Run does not wait:
it queues and polls (web/code_runs.py)."""

from collections.abc import Iterator
from contextlib import contextmanager, suppress

from django.conf import settings
from django.core.cache import cache

from grading.errors import CodeRunInProgress, RunnerBusy
from runner import api as runner_api

_SITE_KEY = "api:code-runs-waiting"
TRY_IT_LIMITS = runner_api.Limits(time_s=5.0)


@contextmanager
def _one_per_user(user_id: int, hold_s: int) -> Iterator[None]:
    key = f"api:code-run-waiting:{user_id}"
    if not cache.add(key, 1, timeout=hold_s):
        raise CodeRunInProgress("Another run of yours is still going; wait for its output.")
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
    wait_s = float(settings.CODE_RUN_WAIT_S)
    hold_s = int(wait_s) + 30
    with _one_per_user(user_id, hold_s), _site_slot(hold_s):
        try:
            return runner_api.request_run(source, TRY_IT_LIMITS, timeout_s=wait_s)
        except runner_api.NoWorkerAnswered as error:
            raise RunnerBusy(f"The code runners are busy: {error}.") from error

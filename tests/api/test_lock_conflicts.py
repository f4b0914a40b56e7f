"""A deadlock PostgreSQL breaks by aborting an API request reaches the client as the one
retryable error (503 with Retry-After), with nothing of the request written."""

import threading
from collections.abc import Callable

import pytest
from django.db import connection, transaction

from config.locking import for_update
from grading.models import Attempt, Response
from tests.api.conftest import World
from tests.api.helpers import save, start
from tests.grading.factories import api_as

pytestmark = pytest.mark.django_db(transaction=True)


def _hold_response_then_want_attempt(
    response_id: int, attempt_id: int, held: threading.Event
) -> Callable[[], None]:
    """Another writer taking the two rows in the wrong order (the response, then its attempt)."""

    def run() -> None:
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL deadlock_timeout = '10s'")
                for_update(Response).get(pk=response_id)
                held.set()
                threading.Event().wait(0.2)  # the autosave now waits for the response
                for_update(Attempt).get(pk=attempt_id)
        finally:
            connection.close()

    return run


def test_an_autosave_aborted_by_a_deadlock_is_a_503_with_retry_after(world: World) -> None:
    client = api_as(world.student)
    attempt = start(client, world.quiz.pk)
    response = Response.objects.get(attempt_id=attempt["id"], position=0)
    held = threading.Event()
    other = threading.Thread(
        target=_hold_response_then_want_attempt(response.pk, attempt["id"], held)
    )
    other.start()
    held.wait(timeout=10)
    with connection.cursor() as cursor:
        # Checked once, after the other writer waits too: this request is the one aborted.
        cursor.execute("SET deadlock_timeout = '1s'")

    try:
        reply = save(client, attempt["id"], 0, {"choice": 1})
    finally:
        other.join(timeout=20)
        with connection.cursor() as cursor:
            cursor.execute("RESET deadlock_timeout")

    assert reply.status_code == 503
    assert reply["Retry-After"] == "5"
    assert reply.json()["error"]["code"] == "database_unavailable"
    response.refresh_from_db()
    assert (response.version, response.answer) == (0, None)

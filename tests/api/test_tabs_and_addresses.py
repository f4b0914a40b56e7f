"""A second tab, a flaky network and a mistyped address against the attempt API: the races
and the writes that must happen once or not at all."""

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from rest_framework.test import APIClient

from grading.models import Attempt, AttemptStatus, Response
from tests.api.conftest import World
from tests.api.helpers import save, start, submit
from tests.grading.factories import api_as, browser_as


def _parallel(n: int, work: Callable[[int], Any]) -> list[Any]:
    """`work(i)` for i < n in n threads let go at once, each with its own connection."""
    go = threading.Barrier(n)

    def run(i: int) -> Any:
        try:
            go.wait()
            return work(i)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(run, range(n)))


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_a_write_to_an_api_address_without_its_slash_is_a_404_naming_the_right_one(
    world: World, student_api: APIClient, method: str, debug: bool
) -> None:
    # A 301 to a POST is followed as a GET (requests, fetch): the submit would be lost, and
    # with DEBUG on Django raises instead (a 500).
    attempt = start(student_api, world.quiz.pk)
    url = f"/api/attempts/{attempt['id']}/submit"
    with override_settings(DEBUG=debug):
        reply = getattr(student_api, method)(url, {}, format="json")
    assert reply.status_code == 404, reply.content
    error = reply.json()["error"]
    assert error["code"] == "not_found"
    assert f"{url}/" in error["message"]
    assert Attempt.objects.get(pk=attempt["id"]).status == AttemptStatus.OPEN


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
def test_a_page_form_posted_without_its_slash_is_the_sites_404(
    world: World, student_api: APIClient, debug: bool
) -> None:
    attempt = start(student_api, world.quiz.pk)
    with override_settings(DEBUG=debug):
        reply = browser_as(world.student).post(f"/quizzes/{world.quiz.pk}/start")
    assert reply.status_code == 404
    assert "Not found" in reply.text
    assert Attempt.objects.filter(user=world.student).count() == 1
    assert Attempt.objects.get(pk=attempt["id"]).status == AttemptStatus.OPEN


@pytest.mark.django_db
def test_a_read_of_an_api_address_without_its_slash_is_still_redirected(
    world: World, student_api: APIClient
) -> None:
    attempt = start(student_api, world.quiz.pk)
    reply = student_api.get(f"/api/attempts/{attempt['id']}")
    assert reply.status_code == 301
    assert reply["Location"] == f"/api/attempts/{attempt['id']}/"


@pytest.mark.django_db(transaction=True)
def test_submits_from_four_tabs_at_once_submit_once_and_answer_alike(world: World) -> None:
    client = api_as(world.student)
    attempt = start(client, world.quiz.pk)
    save(client, attempt["id"], 0, {"choice": 0})
    replies = _parallel(4, lambda i: submit(api_as(world.student), attempt["id"], f"tab-{i}"))
    assert [r.status_code for r in replies] == [200] * 4
    assert len({r.json()["submitted_at"] for r in replies}) == 1


@pytest.mark.django_db(transaction=True)
def test_tabs_saving_one_version_at_once_store_one_answer_and_refuse_the_rest(
    world: World,
) -> None:
    attempt = start(api_as(world.student), world.quiz.pk)
    position = next(
        r["position"] for r in attempt["responses"] if r["question"]["type"] == "short_text"
    )
    replies = _parallel(
        4, lambda i: save(api_as(world.student), attempt["id"], position, {"text": f"t{i}"})
    )
    assert sorted(r.status_code for r in replies) == [200, 409, 409, 409]
    stored = Response.objects.get(attempt_id=attempt["id"], position=position)
    winner = next(r for r in replies if r.status_code == 200)
    assert stored.version == 1 == winner.json()["version"]


@pytest.mark.django_db
def test_an_integer_too_long_to_read_is_a_400_without_pythons_advice(
    world: World, student_api: APIClient
) -> None:
    attempt = start(student_api, world.quiz.pk)
    body = b'{"answer": {"value": ' + b"9" * 5000 + b'}, "version": 0}'
    url = f"/api/attempts/{attempt['id']}/responses/3/"
    reply = student_api.put(url, body, content_type="application/json")
    assert reply.status_code == 400
    message = reply.json()["error"]["message"]
    assert "5,000 digits" in message
    assert "sys." not in message

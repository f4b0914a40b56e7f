"""A Content-Type's charset: honoured when it decodes text, a 415 when it cannot, never a 500."""

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import World
from tests.api.helpers import served, start


def _put_text(client: APIClient, world: World, body: bytes, content_type: str) -> Any:
    attempt = start(client, world.quiz.pk)
    url = f"/api/attempts/{attempt['id']}/responses/4/"
    return client.put(url, body, content_type=content_type)


@pytest.mark.parametrize("charset", ["base64", "rot13", "hex", "zip", "no-such-charset"])
def test_a_json_body_in_a_charset_that_decodes_no_text_is_a_415(
    world: World, student_api: APIClient, charset: str
) -> None:
    body = json.dumps({"version": 0, "answer": {"text": "grad_fn"}}).encode()
    reply = _put_text(student_api, world, body, f"application/json; charset={charset}")
    assert reply.status_code == 415
    error = reply.json()["error"]
    assert error["code"] == "unsupported_media_type"
    assert charset in error["message"]


def test_a_json_body_with_an_empty_charset_is_read_as_utf8(
    world: World, student_api: APIClient
) -> None:
    body = json.dumps({"version": 0, "answer": {"text": "é"}}, ensure_ascii=False).encode()
    reply = _put_text(student_api, world, body, "application/json; charset=")
    assert reply.status_code == 200, reply.content


def test_a_json_body_in_the_utf16_it_declares_is_read(world: World, student_api: APIClient) -> None:
    body = json.dumps({"version": 0, "answer": {"text": "grad_fn é"}}).encode("utf-16")
    reply = _put_text(student_api, world, body, "application/json; charset=utf-16")
    assert reply.status_code == 200, reply.content
    assert reply.json()["version"] == 1


@pytest.mark.django_db
@pytest.mark.parametrize("charset", ["base64", "rot13"])
def test_a_query_string_sent_with_a_non_text_charset_is_answered_not_crashed(
    charset: str,
) -> None:
    status, headers, body = served(
        "GET", "/api/quizzes/?ordering=title", content_type=f"application/json; charset={charset}"
    )
    assert status.startswith("401")
    assert headers["Content-Type"].startswith("application/json")
    assert json.loads(body)["error"]["code"] == "not_authenticated"

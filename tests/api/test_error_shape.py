"""Every response under /api/ is JSON in the one error shape, whatever produced it."""

from typing import Any

import pytest
from django.test import Client, override_settings
from rest_framework.test import APIClient

from tests.api.conftest import World
from tests.api.helpers import start


def error_of(reply: Any) -> dict[str, Any]:
    assert reply["Content-Type"].startswith("application/json")
    body = reply.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "fields"}
    return dict(body["error"])


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("path", ["/api/nope/", "/api/attempts/1/responses/-1/", "/api"])
def test_an_unknown_api_path_is_a_json_404(student_api: APIClient, path: str, debug: bool) -> None:
    with override_settings(DEBUG=debug):
        reply = student_api.get(path)
    assert reply.status_code == 404
    assert error_of(reply)["code"] == "not_found"


def test_outside_the_api_a_404_stays_a_page(db: None) -> None:
    reply = Client().get("/no-such-page/")
    assert reply.status_code == 404
    assert reply["Content-Type"].startswith("text/html")


@pytest.mark.parametrize("debug", [False, True])
def test_an_unhandled_error_is_a_json_500(
    world: World, monkeypatch: pytest.MonkeyPatch, debug: bool
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("quizbank.api.views.access_course", broken)
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(world.student)
    with override_settings(DEBUG=debug):
        reply = client.get(f"/api/courses/{world.course.pk}/")
    assert reply.status_code == 500
    error = error_of(reply)
    assert error["code"] == "server_error"
    assert "a bug" not in error["message"]


def test_a_method_the_endpoint_lacks_is_a_json_405_with_allow(student_api: APIClient) -> None:
    reply = student_api.delete("/api/courses/")
    assert reply.status_code == 405
    assert error_of(reply)["code"] == "method_not_allowed"
    assert "GET" in reply["Allow"]


def test_a_form_body_is_a_json_415(world: World, student_api: APIClient) -> None:
    attempt = start(student_api, world.quiz.pk)
    reply = student_api.put(
        f"/api/attempts/{attempt['id']}/responses/0/",
        "version=0",
        content_type="application/x-www-form-urlencoded",
    )
    assert reply.status_code == 415
    assert error_of(reply)["code"] == "unsupported_media_type"


def test_an_accept_header_for_html_still_gets_json(student_api: APIClient) -> None:
    reply = student_api.get("/api/courses/", HTTP_ACCEPT="text/html")
    assert reply.status_code == 200
    assert reply["Content-Type"] == "application/json"


def test_an_unknown_format_parameter_still_gets_json(student_api: APIClient) -> None:
    reply = student_api.get("/api/courses/?format=xml")
    assert reply.status_code == 200
    assert reply["Content-Type"] == "application/json"


def test_anonymous_calls_are_401_with_www_authenticate(db: None) -> None:
    reply = APIClient().get("/api/courses/")
    assert reply.status_code == 401
    assert reply["WWW-Authenticate"] == "Token"
    assert error_of(reply)["code"] == "not_authenticated"


@pytest.mark.parametrize("debug", [False, True])
def test_too_many_query_parameters_are_a_json_400(student_api: APIClient, debug: bool) -> None:
    query = "&".join(f"p{n}=1" for n in range(1100))
    with override_settings(DEBUG=debug):
        reply = student_api.get(f"/api/courses/?{query}")
    assert reply.status_code == 400
    assert error_of(reply)["code"] == "too_many_fields"


@pytest.mark.parametrize("debug", [False, True])
def test_too_many_query_parameters_on_a_page_are_its_400_page(db: None, debug: bool) -> None:
    query = "&".join(f"p{n}=1" for n in range(1100))
    with override_settings(DEBUG=debug):
        reply = Client().get(f"/signin/?{query}")
    assert reply.status_code == 400
    assert reply["Content-Type"].startswith("text/html")

"""Malformed, mistyped and oversized input gets 400/413 in the one error shape."""

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from tests.api.conftest import World
from tests.api.helpers import save, start


def _error(reply: object) -> dict[str, object]:
    body = reply.json()  # type: ignore[attr-defined]  # a DRF test response
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "fields"}
    return dict(body["error"])


def test_malformed_json_is_a_400_parse_error(world: World, student_api: APIClient) -> None:
    attempt = start(student_api, world.quiz.pk)
    reply = student_api.put(
        f"/api/attempts/{attempt['id']}/responses/0/", "{not json", content_type="application/json"
    )
    assert reply.status_code == 400
    assert _error(reply)["code"] == "parse_error"


def test_a_json_list_body_is_a_400(world: World, student_api: APIClient) -> None:
    attempt = start(student_api, world.quiz.pk)
    reply = student_api.put(f"/api/attempts/{attempt['id']}/responses/0/", [1, 2], format="json")
    assert reply.status_code == 400
    assert _error(reply)["code"] == "invalid"


@pytest.mark.parametrize(
    ("position", "answer", "field"),
    [
        (0, {"choice": "zero"}, "answer.choice"),
        (0, {"choice": 7}, "answer.choice"),
        (0, {"choice": True}, "answer.choice"),
        (1, {"choices": [0, 0]}, "answer.choices"),
        (2, {"value": "yes"}, "answer.value"),
        (3, {"value": "eleven"}, "answer.value"),
        (3, {"value": 11, "extra": 1}, "answer.value"),
        (4, ["grad_fn"], "answer.text"),
    ],
)
def test_an_answer_of_the_wrong_shape_is_a_400_naming_the_field(
    world: World, student_api: APIClient, position: int, answer: object, field: str
) -> None:
    attempt = start(student_api, world.quiz.pk)
    reply = save(student_api, attempt["id"], position, answer)
    assert reply.status_code == 400
    error = _error(reply)
    assert error["code"] == "invalid_answer"
    assert set(error["fields"]) == {field}  # type: ignore[call-overload]  # a JSON mapping


def test_a_wrong_version_type_is_a_400(world: World, student_api: APIClient) -> None:
    attempt = start(student_api, world.quiz.pk)
    reply = student_api.put(
        f"/api/attempts/{attempt['id']}/responses/0/",
        {"answer": {"choice": 0}, "version": "new"},
        format="json",
    )
    assert reply.status_code == 400
    assert "version" in dict(_error(reply)["fields"])  # type: ignore[call-overload]  # JSON


def test_an_unknown_position_is_a_404(world: World, student_api: APIClient) -> None:
    attempt = start(student_api, world.quiz.pk)
    reply = save(student_api, attempt["id"], 99, {"choice": 0})
    assert reply.status_code == 404
    assert _error(reply)["code"] == "no_such_position"
    beyond = student_api.put(
        f"/api/attempts/{attempt['id']}/responses/{2**63}/", {"answer": {}, "version": 0}
    )
    assert beyond.status_code == 404


@override_settings(GRADING_MAX_ANSWER_BYTES=100)
def test_an_answer_over_the_cap_is_a_413(world: World, student_api: APIClient) -> None:
    attempt = start(student_api, world.quiz.pk)
    reply = save(student_api, attempt["id"], 4, {"text": "x" * 200})
    assert reply.status_code == 413
    assert _error(reply)["code"] == "answer_too_large"
    assert _error(reply)["fields"] == {"answer.text": ["at most 100 bytes"]}
    message = str(_error(reply)["message"])
    assert "The answer is 211 bytes" in message  # {"text":"..."} adds 11
    assert "shorten it by at least 111" in message


@override_settings(GRADING_MAX_ANSWER_BYTES=100)
def test_the_cap_counts_the_text_in_utf8_not_in_json_escapes(
    world: World, student_api: APIClient
) -> None:
    attempt = start(student_api, world.quiz.pk)
    # 40 two-byte letters: 80 bytes as stored, 240 as "\u00e9" escapes.
    saved = save(student_api, attempt["id"], 4, {"text": "é" * 40})
    assert saved.status_code == 200
    reply = save(student_api, attempt["id"], 4, {"text": "é" * 50}, saved.json()["version"])
    assert reply.status_code == 413
    assert "is 111 bytes" in str(_error(reply)["message"])  # {"text":"…"}: 11 + 100


@override_settings(GRADING_MAX_REQUEST_BYTES=1000)
def test_a_body_over_the_request_cap_is_a_413(world: World, student_api: APIClient) -> None:
    attempt = start(student_api, world.quiz.pk)
    reply = save(student_api, attempt["id"], 4, {"text": "x" * 5000})
    assert reply.status_code == 413
    assert _error(reply)["code"] == "request_too_large"


def test_unknown_objects_are_404_in_the_error_shape(student_api: APIClient) -> None:
    reply = student_api.get("/api/attempts/999999/")
    assert reply.status_code == 404
    assert _error(reply)["code"] == "not_found"


def test_anonymous_requests_are_401_with_www_authenticate_in_the_error_shape(
    world: World,
) -> None:
    reply = APIClient().post(f"/api/quizzes/{world.quiz.pk}/attempts/")
    assert reply.status_code == 401
    assert reply["WWW-Authenticate"] == "Token"
    assert _error(reply)["code"] == "not_authenticated"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/code-runs/", {"code": 1}, "code"),
        ("/api/auth/token/", {"username": 5, "password": "x"}, "username"),
    ],
)
def test_a_number_where_text_belongs_is_a_400_not_text(
    student_api: APIClient, path: str, body: dict[str, object], field: str
) -> None:
    """DRF's CharField turns 5 into "5"; every text field of the API takes text only."""
    reply = student_api.post(path, body, format="json")
    assert reply.status_code == 400, reply.content
    assert field in _error(reply)["fields"]  # type: ignore[operator]

"""Malformed, mistyped and oversized input gets 400/413 in the one error shape."""

import json
from typing import Any

import pytest
from django.test import Client, override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from grading.models import Attempt
from tests.api.conftest import World
from tests.api.helpers import save, served, start


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


@pytest.mark.parametrize(
    ("role", "method", "path", "body", "field"),
    [
        (
            "author",
            "patch",
            "/api/quizzes/{quiz}/",
            {"penalty_per_attempt": True},
            "penalty_per_attempt",
        ),
        (
            "author",
            "patch",
            "/api/quizzes/{quiz}/",
            {"penalty_per_attempt": "0.5"},
            "penalty_per_attempt",
        ),
        (
            "author",
            "patch",
            "/api/quizzes/{quiz}/",
            {"shuffle_questions": "yes"},
            "shuffle_questions",
        ),
        ("author", "patch", "/api/quizzes/{quiz}/", {"shuffle_choices": 1}, "shuffle_choices"),
        ("author", "patch", "/api/quizzes/{quiz}/", {"attempts_allowed": "2"}, "attempts_allowed"),
        ("author", "patch", "/api/quizzes/{quiz}/", {"time_limit": 600}, "time_limit"),
        ("author", "patch", "/api/quizzes/{quiz}/", {"grace_period": 60}, "grace_period"),
        ("author", "patch", "/api/quizzes/{quiz}/", {"slug": 987}, "slug"),
        (
            "author",
            "post",
            "/api/quizzes/",
            {"course": "{course}", "slug": "q", "title": "Q"},
            "course",
        ),
        (
            "examiner",
            "put",
            "/api/quizzes/{quiz}/marking-policy/",
            {"double_marking": "yes", "disagreement_threshold": 0.2},
            "double_marking",
        ),
        (
            "examiner",
            "put",
            "/api/quizzes/{quiz}/marking-policy/",
            {"double_marking": True, "disagreement_threshold": True},
            "disagreement_threshold",
        ),
        (
            "author",
            "put",
            "/api/quizzes/{quiz}/access/overrides/{student}/",
            {"extra_time_percent": "50"},
            "extra_time_percent",
        ),
        ("student", "post", "/api/code-runs/", {"code": "print(1)", "wait": "false"}, "wait"),
    ],
)
def test_a_value_of_another_json_type_is_a_400_not_converted(
    world: World, role: str, method: str, path: str, body: dict[str, object], field: str
) -> None:
    """DRF's FloatField took `true` as 1.0 (a 100% penalty per attempt), BooleanField "yes",
    IntegerField "2" and SlugField 987; a JSON body's values keep their JSON types."""
    ids = {"quiz": world.quiz.pk, "course": world.course.pk, "student": world.student.pk}
    path = path.format(**ids)
    body = {
        key: str(world.course.pk) if value == "{course}" else value for key, value in body.items()
    }
    before = (world.quiz.penalty_per_attempt, world.quiz.shuffle_questions, world.quiz.slug)
    client = APIClient()
    client.force_authenticate(getattr(world, role))
    reply = getattr(client, method)(path, body, format="json")
    assert reply.status_code == 400, reply.content
    assert set(_error(reply)["fields"]) == {field}  # type: ignore[call-overload]
    world.quiz.refresh_from_db()
    assert (world.quiz.penalty_per_attempt, world.quiz.shuffle_questions, world.quiz.slug) == before


def test_numbers_and_booleans_of_their_own_type_are_still_taken(
    world: World,
) -> None:
    client = APIClient()
    client.force_authenticate(world.author)
    body = {
        "penalty_per_attempt": 0,
        "attempts_allowed": 2.0,
        "shuffle_questions": True,
        "time_limit": "00:10:00",
    }
    reply = client.patch(f"/api/quizzes/{world.quiz.pk}/", body, format="json")
    assert reply.status_code == 200, reply.content
    assert (reply.json()["penalty_per_attempt"], reply.json()["attempts_allowed"]) == (0.0, 2)
    assert reply.json()["time_limit"] == "00:10:00"


@pytest.mark.parametrize(
    ("sent", "read_back"),
    [
        ("P1W", "7 00:00:00"),
        ("p1w", "7 00:00:00"),
        ("P1W2D", "9 00:00:00"),
        ("PT1H30M", "01:30:00"),
        ("pt1h30m", "01:30:00"),
        ("P1DT2H", "1 02:00:00"),
        ("PT1.5H", "01:30:00"),
        (" PT45S ", "00:00:45"),
        ("00:10:00", "00:10:00"),
        ("10:00", "00:10:00"),
        ("1 02:00:00", "1 02:00:00"),
        ("3 days 04:05:06", "3 04:05:06"),
    ],
)
def test_a_duration_is_taken_in_every_form_a_client_would_send(
    world: World, sent: str, read_back: str
) -> None:
    client = APIClient()
    client.force_authenticate(world.author)
    reply = client.patch(f"/api/quizzes/{world.quiz.pk}/", {"time_limit": sent}, format="json")
    assert reply.status_code == 200, reply.content
    assert reply.json()["time_limit"] == read_back


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"time_limit": "P"}, "time_limit"),
        ({"time_limit": "PT"}, "time_limit"),
        ({"time_limit": "P1DT"}, "time_limit"),
        ({"time_limit": "P1Y"}, "time_limit"),
        ({"time_limit": "P1M"}, "time_limit"),
        ({"time_limit": "ten minutes"}, "time_limit"),
        ({"time_limit": 600}, "time_limit"),
        ({"grace_period": "P"}, "grace_period"),
    ],
)
def test_a_duration_in_no_known_form_is_a_400_listing_every_form_with_an_example(
    world: World, body: dict[str, object], field: str
) -> None:
    client = APIClient()
    client.force_authenticate(world.author)
    reply = client.patch(f"/api/quizzes/{world.quiz.pk}/", body, format="json")
    assert reply.status_code == 400, reply.content
    [message] = _error(reply)["fields"][field]  # type: ignore[index]  # a JSON mapping
    for example in ("P1W", "PT1H30M", "P1DT2H", "00:10:00", "1 02:00:00", "3 days 04:05:06"):
        assert example in message
    world.quiz.refresh_from_db()
    assert world.quiz.time_limit is None


@pytest.mark.parametrize(
    "body",
    [
        {"time_limit": "-PT10M"},
        {"time_limit": "PT0S"},
        {"time_limit": "P5W"},
        {"time_limit": "P99999999999W"},
        {"time_limit": "PT99999999999999H"},
        {"grace_period": "-P1D"},
        {"grace_period": "P1000000000D"},
    ],
)
def test_a_duration_negative_zero_or_too_long_is_still_refused(
    world: World, body: dict[str, object]
) -> None:
    client = APIClient()
    client.force_authenticate(world.author)
    reply = client.patch(f"/api/quizzes/{world.quiz.pk}/", body, format="json")
    assert reply.status_code == 400, reply.content
    assert set(_error(reply)["fields"]) == set(body)  # type: ignore[call-overload]


def test_a_grace_period_of_zero_is_taken(world: World) -> None:
    client = APIClient()
    client.force_authenticate(world.author)
    reply = client.patch(f"/api/quizzes/{world.quiz.pk}/", {"grace_period": "PT0S"}, format="json")
    assert reply.status_code == 200, reply.content
    assert reply.json()["grace_period"] == "00:00:00"


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/api/courses/1/bank/import/", "application/json"),
        ("/signin/", "text/html"),  # signed in or not: nothing is read first
    ],
)
def test_a_body_declared_over_the_site_cap_is_a_413_before_it_is_read(
    path: str, shown: str, settings: Any
) -> None:
    settings.MAX_REQUEST_BODY_BYTES = 1000
    reply = Client().generic(
        "POST",
        path,
        b"x" * 10,
        content_type="multipart/form-data; boundary=b",
        CONTENT_LENGTH="400000000",
    )
    assert reply.status_code == 413
    assert reply["Content-Type"].startswith(shown)
    assert (
        "The request body is 400,000,000 bytes; 1,000 is the most read." in reply.content.decode()
    )


def test_a_chunked_body_without_a_length_is_a_411_not_read_as_empty(world: World) -> None:
    # As gunicorn hands over a chunked body: decoded in wsgi.input, with no CONTENT_LENGTH.
    token = Token.objects.create(user=world.student).key
    body = json.dumps({"access_code": ""}).encode()
    status, headers, content = served(
        "POST",
        f"/api/quizzes/{world.quiz.pk}/attempts/",
        body,
        CONTENT_TYPE="application/json",
        HTTP_TRANSFER_ENCODING="chunked",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    assert status.startswith("411")
    assert json.loads(content)["error"]["code"] == "length_required"
    assert not Attempt.objects.filter(user=world.student).exists()


def test_a_body_with_its_length_is_read_through_the_wsgi_application(world: World) -> None:
    token = Token.objects.create(user=world.student).key
    body = json.dumps({"access_code": ""}).encode()
    status, _, _ = served(
        "POST",
        f"/api/quizzes/{world.quiz.pk}/attempts/",
        body,
        CONTENT_TYPE="application/json",
        CONTENT_LENGTH=str(len(body)),
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    assert status.startswith("201")

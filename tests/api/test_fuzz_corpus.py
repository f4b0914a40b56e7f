"""The inputs that once gave 500s: each is now a 4xx in the one error shape, and nothing
is saved half-way (issue 8)."""

from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from grading.models import Attempt, Response
from grading.models.marking import Mark, QuizMarkingPolicy
from tests.api.conftest import World
from tests.api.helpers import start

DEEP = "[" * 1000 + "]" * 1000  # about 2 KB
BIG_INT = "1" + "0" * 400
BIG_ID = "99999999999999999999999"


@dataclass(frozen=True)
class Case:
    who: str  # "student", "examiner" or "anonymous"
    method: str
    url: str  # {attempt}, {viva} (its viva answer) and {quiz} are filled in
    body: str | None  # raw JSON text, sent as is
    status: int
    code: str
    field: str | None = None  # the field the error names, if any
    headers: tuple[tuple[str, str], ...] = ()


def _answer(position: int, answer: str, version: str = "0") -> tuple[str, str]:
    url = f"/api/attempts/{{attempt}}/responses/{position}/"
    return url, f'{{"answer": {answer}, "version": {version}}}'


CORPUS: dict[str, Case] = {
    "lone surrogate in a text answer": Case(
        "student", "put", *_answer(4, r'{"text": "grad\ud800"}'), 400, "invalid", "answer.text"
    ),
    "lone low surrogate in a viva answer": Case(
        "student", "put", *_answer(5, r'{"text": "\udc00"}'), 400, "invalid", "answer.text"
    ),
    "NUL in a text answer": Case(
        "student", "put", *_answer(4, r'{"text": "grad\u0000fn"}'), 400, "invalid", "answer.text"
    ),
    "NUL in a key of an answer": Case(
        "student", "put", *_answer(4, r'{"te\u0000xt": "grad_fn"}'), 400, "invalid", "answer"
    ),
    "1 and 400 zeros as a numeric answer": Case(
        "student",
        "put",
        *_answer(3, f'{{"value": {BIG_INT}}}'),
        400,
        "invalid_answer",
        "answer.value",
    ),
    "1 and 400 zeros as a numeric string": Case(
        "student",
        "put",
        *_answer(3, f'{{"value": "{BIG_INT}"}}'),
        400,
        "invalid_answer",
        "answer.value",
    ),
    "a number beyond a float": Case(
        "student", "put", *_answer(3, '{"value": 1e400}'), 400, "parse_error"
    ),
    "NaN": Case("student", "put", *_answer(3, '{"value": NaN}'), 400, "parse_error"),
    "JSON nested 1000 deep in an answer": Case(
        "student", "put", *_answer(4, DEEP), 400, "parse_error"
    ),
    "JSON nested 1000 deep to the token endpoint": Case(
        "anonymous", "post", "/api/auth/token/", f'{{"username": {DEEP}}}', 400, "parse_error"
    ),
    "version 2**63": Case(
        "student", "put", *_answer(0, '{"choice": 0}', str(2**63)), 400, "invalid", "version"
    ),
    "a huge quiz id on the marking queue": Case(
        "examiner", "get", f"/api/marking/queue/?quiz={BIG_ID}", None, 400, "invalid", "quiz"
    ),
    "an unknown status on the marking queue": Case(
        "examiner", "get", "/api/marking/queue/?status=zzz", None, 400, "invalid", "status"
    ),
    "a huge id in a path": Case(
        "examiner", "get", f"/api/attempts/{BIG_ID}/", None, 404, "not_found"
    ),
    "an API path that does not exist": Case("student", "get", "/api/nope/", None, 404, "not_found"),
    "a negative id in a path": Case(
        "student", "get", "/api/attempts/{attempt}/responses/-1/", None, 404, "not_found"
    ),
    "a NUL in the Idempotency-Key": Case(
        "student",
        "post",
        "/api/attempts/{attempt}/submit/",
        None,
        400,
        "invalid",
        "Idempotency-Key",
        (("Idempotency-Key", "a\x00b"),),
    ),
    "an anonymous call": Case(
        "anonymous", "get", "/api/attempts/{attempt}/", None, 401, "not_authenticated"
    ),
    "a student probing the marking policy with a bad body": Case(
        "student",
        "put",
        "/api/quizzes/{quiz}/marking-policy/",
        '{"double_marking": "x"}',
        403,
        "permission_denied",
    ),
    "NUL in a mark's comment": Case(
        "examiner",
        "post",
        "/api/marking/responses/{viva}/marks/",
        r'{"levels": [1], "comment": "fine\u0000"}',
        400,
        "invalid",
        "comment",
    ),
    "an unpaired surrogate where an id belongs": Case(
        "examiner",
        "post",
        "/api/viva-sessions/",
        r'{"quiz": 1, "student": "\ud83d"}',
        400,
        "invalid",
        "student",
    ),
}


def _state() -> dict[str, Any]:
    """Everything a refused request could have half-saved."""
    return {
        "responses": list(Response.objects.order_by("pk").values_list("pk", "answer", "version")),
        "attempts": list(Attempt.objects.order_by("pk").values_list("pk", "status")),
        "tokens": Token.objects.count(),
        "marks": Mark.objects.count(),
        "policies": QuizMarkingPolicy.objects.count(),
    }


def _client(world: World, who: str) -> APIClient:
    client = APIClient(raise_request_exception=False)
    users: dict[str, User] = {"student": world.student, "examiner": world.examiner}
    if who in users:
        client.force_authenticate(users[who])
    return client


def _send(world: World, case: Case, attempt: int) -> Any:
    viva = Response.objects.get(attempt_id=attempt, position=5).pk
    url = case.url.format(attempt=attempt, viva=viva, quiz=world.quiz.pk)
    client = _client(world, case.who)
    kwargs: dict[str, Any] = {"headers": dict(case.headers)}
    if case.body is not None:
        kwargs.update(data=case.body.encode(), content_type="application/json")
    return getattr(client, case.method)(url, **kwargs)


@pytest.mark.parametrize("name", list(CORPUS))
def test_each_input_that_gave_a_500_is_a_clear_4xx_and_saves_nothing(
    world: World, student_api: APIClient, name: str
) -> None:
    case = CORPUS[name]
    attempt = start(student_api, world.quiz.pk)["id"]
    before = _state()

    reply = _send(world, case, attempt)

    assert reply.status_code == case.status, reply.content
    assert reply["Content-Type"] == "application/json"
    error = reply.json()["error"]
    assert set(error) == {"code", "message", "fields"}
    assert error["code"] == case.code
    assert list(error["fields"]) == ([case.field] if case.field else [])
    assert _state() == before


@override_settings(GRADING_MAX_REQUEST_BYTES=256 * 1024)
def test_a_3_mb_body_to_the_token_endpoint_is_a_json_413(db: None) -> None:
    body = b'{"username": "' + b"x" * 3_000_000 + b'"}'
    reply = APIClient().post("/api/auth/token/", body, content_type="application/json")

    assert reply.status_code == 413
    assert reply.json()["error"]["code"] == "request_too_large"
    assert Token.objects.count() == 0


def test_after_a_refused_surrogate_the_attempt_submit_and_marking_view_still_work(
    world: World, student_api: APIClient
) -> None:
    attempt = start(student_api, world.quiz.pk)["id"]
    _send(world, CORPUS["lone low surrogate in a viva answer"], attempt)
    student_api.put(
        f"/api/attempts/{attempt}/responses/5/",
        {"answer": {"text": "backward adds into .grad"}, "version": 0},
    )

    assert student_api.get(f"/api/attempts/{attempt}/").status_code == 200
    assert student_api.post(f"/api/attempts/{attempt}/submit/").status_code == 200
    viva = Response.objects.get(attempt_id=attempt, position=5)
    examiner = _client(world, "examiner")
    assert examiner.get(f"/api/marking/responses/{viva.pk}/").status_code == 200

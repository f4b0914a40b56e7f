"""Schemathesis against the API's own schema: every operation, called as a student, an
examiner and an author, never answers 5xx and always answers as the schema says (status,
content type, body and headers); undocumented methods are 405 and calls without the
token are 401. Bounded and deterministic (a fixed number of examples, derandomized), so
that it fits in `make test`.
"""

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.utils import timezone
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from config.scopes import Scope
from grading.services.marking.marks import MarkInput, mark_create
from grading.services.regrade.requests import regrade_request_create
from grading.services.regrade.runs import regrade_run_start
from grading.services.viva_sessions import viva_session_start
from lms.services.tokens import api_client_create, token_issue
from quizbank.models import Quiz, ReleasePolicy, Role
from runner import api as runner_api
from tests.api.conftest import World
from tests.grading.factories import member, submitted_attempt

# Bounded in `make test`; SCHEMATHESIS_EXAMPLES=100 is the long run (minutes; README).
EXAMPLES_PER_OPERATION = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "6"))
PEOPLE = ("student", "examiner", "author")
# "client" adds an API client (every scope, author and examiner of the course), which
# reaches the operations a person's token is refused (users, webhooks, LTI platforms).
ROLES = tuple(os.environ.get("SCHEMATHESIS_ROLES", ",".join(PEOPLE)).split(","))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    unsupported_method,
    ignored_auth,
]


# The schema as /api/schema/ serves it; every request, the checks' own included, goes to
# the real WSGI app in this process.
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())


@pytest.fixture
def on_the_test_database(db: None) -> Iterator[None]:
    """Keep the test's database connection (and its transaction) across WSGI requests,
    which Django would close as a server does between requests."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@dataclass
class Demo:
    tokens: dict[str, str]  # role -> Authorization header
    ids: dict[str, list[int]]  # path parameter -> ids of real objects


@pytest.fixture
def demo(world: World, monkeypatch: pytest.MonkeyPatch) -> Demo:
    """The three roles' tokens and one object of each kind for the examples to reach;
    "try it" code runs answer without a worker (the runner is not under test here)."""
    done = runner_api.RunResult(status=runner_api.Status.OK, exit_code=0, stdout="ok\n")
    monkeypatch.setattr(runner_api, "request_run", lambda *args, **kwargs: done)
    monkeypatch.setattr(runner_api, "start_run", lambda *args, **kwargs: "job-1")
    monkeypatch.setattr(runner_api, "run_result", lambda job_id: done)
    now = timezone.now()
    Quiz.objects.filter(pk=world.quiz.pk).update(
        attempts_allowed=0, released_at=now, release_policy=ReleasePolicy.MANUAL
    )
    quiz = Quiz.objects.get(pk=world.quiz.pk)
    attempt = submitted_attempt(quiz, world.student, {0: {"choice": 0}, 5: {"text": "it adds"}})
    viva = attempt.responses.get(position=5)
    single = attempt.responses.get(position=0)
    mark = mark_create(
        response_id=viva.pk, marker=world.examiner, data=MarkInput(levels=[1]), now=now
    )
    session = viva_session_start(quiz=quiz, student=world.student, examiner=world.examiner, now=now)
    run = regrade_run_start(
        quiz=quiz,
        question=single.question_version.question,
        mode="keep",
        reason="typo",
        actor=world.examiner,
        now=now,
    )
    request = regrade_request_create(response=single, student=world.student, reason="why", now=now)
    ids = {
        "course_id": [world.course.pk],
        "quiz_id": [quiz.pk],
        "attempt_id": [attempt.pk],
        "question_id": [single.question_version.question_id],
        "response_id": [viva.pk],
        "mark_id": [mark.pk],
        "session_id": [session.pk],
        "run_id": [run.pk],
        "request_id": [request.pk],
        "position": list(range(6)),
    }
    tokens = {
        role: f"Token {Token.objects.create(user=getattr(world, role)).key}" for role in PEOPLE
    }
    tokens["client"] = f"Bearer {_client_token(world)}"
    return Demo(tokens, ids)


def _client_token(world: World) -> str:
    client = api_client_create(name="schemathesis")
    for role in (Role.AUTHOR, Role.EXAMINER):
        member(world.course, role, client.user)
    return token_issue(client=client, scopes=Scope.values)[1]


def _point_at_real_objects(case: Any, ids: dict[str, list[int]]) -> None:
    """Send about half of the generated ids (the even ones) to real objects instead, so
    that the examples reach the answers that carry data, not only 404s."""
    for name, value in (case.path_parameters or {}).items():
        if isinstance(value, int) and value % 2 == 0 and name in ids:
            known = ids[name]
            case.path_parameters[name] = known[value // 2 % len(known)]


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_answers_as_its_schema_says(
    case: Any, on_the_test_database: None, demo: Demo
) -> None:
    _point_at_real_objects(case, demo.ids)
    for role in ROLES:
        case.call_and_validate(headers={"Authorization": demo.tokens[role]}, checks=CHECKS)

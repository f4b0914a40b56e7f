"""Permission matrix: every role × every endpoint × an object in their own or another course."""

from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.utils import timezone
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from grading.models import Attempt
from grading.services.attempts import attempt_start
from quizbank.models import Question, Quiz, Role
from tests.api.helpers import ANON, ROLES, assert_matrix_status, client_as, listed_ids
from tests.grading.content import SINGLE
from tests.grading.factories import add_slots, member, new_course, new_quiz, question


@dataclass
class Target:
    quiz: Quiz
    question: Question
    attempt: Attempt


def _course_objects() -> tuple[Target, dict[str, User]]:
    course = new_course()
    quiz = new_quiz(course=course)
    q = question(course, SINGLE)
    add_slots(quiz, q)
    users = {str(r): member(course, r) for r in (Role.STUDENT, Role.EXAMINER, Role.AUTHOR)}
    attempt = attempt_start(quiz=quiz, user=users[Role.STUDENT], now=timezone.now())
    return Target(quiz, q, attempt), users


@pytest.fixture
def matrix(db: None) -> tuple[Target, Target, dict[str, User | None]]:
    own, users = _course_objects()
    other, _ = _course_objects()
    admin = User.objects.create(username="root", is_staff=True, is_superuser=True)
    return own, other, {"anonymous": None, **users, "admin": admin}


# endpoint -> (method, path, body, expected status by role for an object in the own course)
ENDPOINTS: dict[str, tuple[str, str, Any, dict[str, int]]] = {
    "course detail": (
        "get",
        "/api/courses/{course}/",
        None,
        {"student": 200, "examiner": 200, "author": 200, "admin": 200},
    ),
    "question detail": (
        "get",
        "/api/questions/{question}/",
        None,
        {"student": 404, "examiner": 404, "author": 200, "admin": 200},
    ),
    "quiz detail": (
        "get",
        "/api/quizzes/{quiz}/",
        None,
        {"student": 200, "examiner": 200, "author": 200, "admin": 200},
    ),
    "quiz release": (
        "post",
        "/api/quizzes/{quiz}/release/",
        None,
        {"student": 403, "examiner": 200, "author": 403, "admin": 200},
    ),
    "attempt start": (
        "post",
        "/api/quizzes/{quiz}/attempts/",
        None,
        # The student resumes the open attempt the matrix made (200); the admin, who holds
        # every role but is enrolled as no course's student, takes no quiz (not_a_student).
        {"student": 200, "examiner": 403, "author": 403, "admin": 400},
    ),
    "quiz grade": (
        "get",
        "/api/quizzes/{quiz}/grade/",
        None,
        {"student": 200, "examiner": 403, "author": 403, "admin": 200},
    ),
    "attempt detail": (
        "get",
        "/api/attempts/{attempt}/",
        None,
        {"student": 200, "examiner": 200, "author": 404, "admin": 200},
    ),
    "attempt result": (
        "get",
        "/api/attempts/{attempt}/result/",
        None,
        {"student": 200, "examiner": 200, "author": 404, "admin": 200},
    ),
    "autosave": (
        "put",
        "/api/attempts/{attempt}/responses/0/",
        {"answer": {"choice": 0}, "version": 0},
        {"student": 200, "examiner": 404, "author": 404, "admin": 404},
    ),
    "submit": (
        "post",
        "/api/attempts/{attempt}/submit/",
        None,
        {"student": 200, "examiner": 404, "author": 404, "admin": 404},
    ),
}


def _call(client: APIClient, endpoint: str, target: Target) -> int:
    method, path, body, _ = ENDPOINTS[endpoint]
    url = path.format(
        course=target.quiz.course_id,
        quiz=target.quiz.pk,
        question=target.question.pk,
        attempt=target.attempt.pk,
    )
    return int(getattr(client, method)(url, body, format="json").status_code)


@pytest.mark.parametrize("where", ["own", "other"])
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_the_permission_matrix(matrix: Any, endpoint: str, role: str, where: str) -> None:
    own, other, users = matrix
    status = _call(client_as(users, role), endpoint, own if where == "own" else other)
    assert_matrix_status(status, role=role, where=where, expected=ENDPOINTS[endpoint][3])


LISTS = {
    "/api/courses/": "course",
    "/api/quizzes/": "quiz",
    "/api/questions/": "question",
    "/api/attempts/": "attempt",
}
SEES_OWN = {
    "course": {"student", "examiner", "author", "admin"},
    "quiz": {"student", "examiner", "author", "admin"},
    "question": {"author", "admin"},
    "attempt": {"student", "examiner", "admin"},
}


def _id(target: Target, kind: str) -> int:
    obj = {
        "course": target.quiz.course,
        "quiz": target.quiz,
        "question": target.question,
        "attempt": target.attempt,
    }[kind]
    return int(obj.pk)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("url", list(LISTS))
def test_lists_show_only_the_users_courses(matrix: Any, url: str, role: str) -> None:
    own, other, users = matrix
    client = client_as(users, role)
    if users[role] is None:
        assert client.get(url).status_code in ANON
        return
    ids = listed_ids(client, url)
    kind = LISTS[url]
    assert (_id(own, kind) in ids) == (role in SEES_OWN[kind])
    assert (_id(other, kind) in ids) == (role == "admin")


@pytest.mark.usefixtures("celery_eager")
@pytest.mark.parametrize("role", ROLES)
def test_code_runs_need_a_login_and_outside_an_attempt_course_staff(matrix: Any, role: str) -> None:
    _, _, users = matrix
    client = APIClient()
    if users[role] is not None:
        client.force_authenticate(users[role])
    reply = client.post("/api/code-runs/", {"code": "print(6 * 7)"}, format="json")
    if role == "anonymous":
        assert reply.status_code in ANON
    elif role == Role.STUDENT:
        assert (reply.status_code, reply.json()["error"]["code"]) == (400, "code_run_needs_attempt")
    else:
        assert reply.status_code == 200
        assert reply.json()["stdout"] == "42\n"


@pytest.mark.parametrize("path", ["/api/attempts/{id}/", "/api/attempts/{id}/result/"])
def test_a_student_never_sees_a_classmates_attempt(matrix: Any, path: str) -> None:
    own, _, _ = matrix
    classmate = member(own.quiz.course, Role.STUDENT)
    client = APIClient()
    client.force_authenticate(classmate)
    assert client.get(path.format(id=own.attempt.pk)).status_code == 404
    ids = {row["id"] for row in client.get("/api/attempts/").json()["results"]}
    assert own.attempt.pk not in ids


@pytest.mark.usefixtures("celery_eager")
def test_code_runs_are_rate_limited_per_user(matrix: Any, monkeypatch: Any) -> None:
    cache.clear()
    # The rates are read once at import; patch the class for this test only.
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"code_run": "2/min"})
    _, _, users = matrix
    client = APIClient()
    client.force_authenticate(users[Role.AUTHOR])
    codes = [client.post("/api/code-runs/", {"code": "pass"}, format="json") for _ in range(3)]
    assert [c.status_code for c in codes] == [200, 200, 429]
    assert codes[2].json()["error"]["code"] == "throttled"
    other = APIClient()
    other.force_authenticate(users[Role.EXAMINER])
    assert other.post("/api/code-runs/", {"code": "pass"}, format="json").status_code == 200

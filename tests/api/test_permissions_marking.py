"""Permission matrix of the examiner endpoints: role × endpoint × own or other course."""

from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from grading.models import Response
from grading.models.marking import Mark
from grading.models.regrade import RegradeRequest, RegradeRun
from grading.models.viva_sessions import VivaSession
from grading.services.marking.marks import MarkInput, mark_create
from grading.services.regrade.requests import regrade_request_create
from grading.services.regrade.runs import regrade_run_start
from grading.services.viva_sessions import Pool, viva_session_draw, viva_session_start
from quizbank.models import Question, Quiz, ReleasePolicy, Role
from tests.api.helpers import ANON, ROLES, assert_matrix_status, client_as, listed_ids
from tests.grading.content import SINGLE, VIVA
from tests.grading.factories import member, new_course, question, submitted_attempt


@dataclass
class Target:
    quiz: Quiz
    single: Question
    viva: Response
    mark: Mark
    session: VivaSession
    run: RegradeRun
    request: RegradeRequest
    student: User


def _course_objects() -> tuple[Target, dict[str, User]]:
    course = new_course()
    quiz = Quiz.objects.create(
        course=course,
        slug="q",
        title="Q",
        attempts_allowed=0,
        release_policy=ReleasePolicy.MANUAL,
        released_at=timezone.now(),
    )
    single, viva_q = question(course, SINGLE), question(course, VIVA)
    for position, q in enumerate((single, viva_q)):
        quiz.slots.create(position=position, question=q)
    users = {str(r): member(course, r) for r in (Role.STUDENT, Role.EXAMINER, Role.AUTHOR)}
    student, examiner = users[Role.STUDENT], users[Role.EXAMINER]
    attempt = submitted_attempt(quiz, student, {0: {"choice": 0}, 1: {"text": "t"}})
    viva = attempt.responses.get(position=1)
    now = timezone.now()
    mark = mark_create(response_id=viva.pk, marker=examiner, data=MarkInput(levels=[1]), now=now)
    session = viva_session_start(quiz=quiz, student=student, examiner=examiner, now=now)
    viva_session_draw(session=session, pool=Pool(), now=now)
    run = regrade_run_start(
        quiz=quiz, question=single, mode="keep", reason="r", actor=examiner, now=now
    )
    RegradeRun.objects.filter(pk=run.pk).update(status="done")  # a new run may start
    request = regrade_request_create(
        response=attempt.responses.get(position=0), student=student, reason="why", now=now
    )
    return Target(quiz, single, viva, mark, session, run, request, student), users


@pytest.fixture
def matrix(db: None) -> tuple[Target, Target, dict[str, User | None]]:
    own, users = _course_objects()
    other, _ = _course_objects()
    admin = User.objects.create(username="root", is_staff=True, is_superuser=True)
    return own, other, {"anonymous": None, **users, "admin": admin}


def _expect(student: int, examiner: int, author: int, admin: int) -> dict[str, int]:
    return {"student": student, "examiner": examiner, "author": author, "admin": admin}


EXAMINERS_ONLY = _expect(403, 200, 403, 200)
# The examiner already marked (409), an admin may add a second mark (201).
MARK_AGAIN = _expect(403, 409, 403, 201)
# Passing the permission check, the answer is not flagged (409).
NOT_FLAGGED = _expect(403, 409, 403, 409)
LEVEL = {"levels": [2]}
# endpoint -> (method, path, body, expected status by role for objects of the own course)
ENDPOINTS: dict[str, tuple[str, str, Any, dict[str, int]]] = {
    "marking response": ("get", "/api/marking/responses/{viva}/", None, EXAMINERS_ONLY),
    "mark create": ("post", "/api/marking/responses/{viva}/marks/", LEVEL, MARK_AGAIN),
    "mark update": ("put", "/api/marking/marks/{mark}/", LEVEL, _expect(403, 200, 403, 403)),
    "moderation": ("post", "/api/marking/responses/{viva}/moderation/", LEVEL, NOT_FLAGGED),
    "second mark": ("post", "/api/marking/responses/{viva}/second-mark/", None, EXAMINERS_ONLY),
    "history": ("get", "/api/marking/responses/{viva}/history/", None, EXAMINERS_ONLY),
    "policy": ("get", "/api/quizzes/{quiz}/marking-policy/", None, EXAMINERS_ONLY),
    "policy set": (
        "put",
        "/api/quizzes/{quiz}/marking-policy/",
        {"double_marking": True, "disagreement_threshold": 0.3},
        EXAMINERS_ONLY,
    ),
    "viva start": (
        "post",
        "/api/viva-sessions/",
        {"quiz": "{quiz}", "student": "{student}"},
        _expect(403, 201, 403, 201),
    ),
    "viva detail": ("get", "/api/viva-sessions/{session}/", None, EXAMINERS_ONLY),
    "viva draw": ("post", "/api/viva-sessions/{session}/draws/", {}, _expect(403, 409, 403, 409)),
    "viva record": (
        "post",
        "/api/viva-sessions/{session}/questions/0/",
        {"notes": "n"},
        EXAMINERS_ONLY,
    ),
    "viva put back": ("delete", "/api/viva-sessions/{session}/questions/0/", None, EXAMINERS_ONLY),
    "viva end": ("post", "/api/viva-sessions/{session}/end/", None, _expect(403, 409, 403, 409)),
    "regrade start": (
        "post",
        "/api/quizzes/{quiz}/regrade-runs/",
        {"question": "{single}", "mode": "keep", "reason": "x"},
        _expect(403, 201, 403, 201),
    ),
    "regrade run": ("get", "/api/regrade-runs/{run}/", None, EXAMINERS_ONLY),
    "regrade request": (
        "post",
        "/api/attempts/{attempt}/responses/1/regrade-requests/",
        {"reason": "please"},
        _expect(201, 404, 404, 404),
    ),
    "regrade answer": (
        "post",
        "/api/regrade-requests/{request}/answer/",
        {"decision": "reject", "reply": "no"},
        EXAMINERS_ONLY,
    ),
    "statistics": ("get", "/api/quizzes/{quiz}/statistics/", None, EXAMINERS_ONLY),
    "statistics csv": ("get", "/api/quizzes/{quiz}/statistics.csv", None, EXAMINERS_ONLY),
    "grades csv": ("get", "/api/quizzes/{quiz}/grades.csv", None, EXAMINERS_ONLY),
}


def _fill(value: Any, ids: dict[str, int]) -> Any:
    if isinstance(value, dict):
        return {key: _fill(item, ids) for key, item in value.items()}
    if isinstance(value, str) and value.startswith("{"):
        return ids[value.strip("{}")]
    return value


def _call(client: APIClient, endpoint: str, t: Target) -> int:
    method, path, body, _ = ENDPOINTS[endpoint]
    ids = {
        "viva": t.viva.pk,
        "mark": t.mark.pk,
        "quiz": t.quiz.pk,
        "session": t.session.pk,
        "run": t.run.pk,
        "request": t.request.pk,
        "student": t.student.pk,
        "single": t.single.pk,
        "attempt": t.viva.attempt_id,
    }
    url = path.format(**ids)
    return int(getattr(client, method)(url, _fill(body, ids), format="json").status_code)


# A viva start names its course in the body, so the role is checked before the body is
# read: students and authors get 403 whichever course the body names.
ROLE_BEFORE_BODY = {"viva start"}


@pytest.mark.parametrize("where", ["own", "other"])
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_the_examiner_permission_matrix(matrix: Any, endpoint: str, role: str, where: str) -> None:
    own, other, users = matrix
    status = _call(client_as(users, role), endpoint, own if where == "own" else other)
    if endpoint in ROLE_BEFORE_BODY and role in ("student", "author"):
        assert status == 403
    else:
        assert_matrix_status(status, role=role, where=where, expected=ENDPOINTS[endpoint][3])


WRITES = [name for name, (method, *_) in ENDPOINTS.items() if method in ("post", "put")]


@pytest.mark.parametrize("endpoint", WRITES)
def test_a_student_probing_with_a_bad_body_is_refused_before_the_body_is_read(
    matrix: Any, endpoint: str
) -> None:
    own, _, users = matrix
    method, path, _, expected = ENDPOINTS[endpoint]
    ids = {
        "viva": own.viva.pk,
        "mark": own.mark.pk,
        "quiz": own.quiz.pk,
        "session": own.session.pk,
        "run": own.run.pk,
        "request": own.request.pk,
        "attempt": own.viva.attempt_id,
    }
    reply = getattr(client_as(users, "student"), method)(path.format(**ids), {"levels": "x"})
    if expected["student"] < 400:
        return  # the student's own action: the body is the student's to get right
    assert reply.status_code in (403, 404)
    assert reply.json()["error"]["fields"] == {}


LISTS = {
    "/api/marking/queue/": "viva",
    "/api/regrade-runs/": "run",
    "/api/regrade-requests/": "request",
    "/api/viva-sessions/": "session",
}
SEES_OWN = {
    "viva": {"examiner", "admin"},
    "run": {"examiner", "admin"},
    "request": {"student", "examiner", "admin"},
    "session": {"examiner", "admin"},
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("url", list(LISTS))
def test_examiner_lists_show_only_the_users_courses(matrix: Any, url: str, role: str) -> None:
    own, other, users = matrix
    client = client_as(users, role)
    if users[role] is None:
        assert client.get(url).status_code in ANON
        return
    ids = listed_ids(client, url)
    kind = LISTS[url]
    assert (getattr(own, kind).pk in ids) == (role in SEES_OWN[kind])
    assert (getattr(other, kind).pk in ids) == (role == "admin")

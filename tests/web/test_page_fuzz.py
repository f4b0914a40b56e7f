"""Every browser page, for every kind of user, with hostile input in every field it has:
no reply is a 500, and sign-in never sends a user to another site.

The fields are read from each page's own HTML (inputs, selects and text areas), so a field
added later is fuzzed without this file changing."""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from grading.services.marking.marks import MarkInput, mark_create
from quizbank.models import Role
from tests.grading.content import CODE, NUMERIC, SINGLE, VIVA
from tests.grading.factories import member, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db

HOSTILE = [
    "",
    "%00",
    "%ED%A0%80",  # a UTF-16 surrogate, as UTF-8 bytes: not valid text
    "%FF%FE",
    "-1",
    "0",
    "99999999999999999999999999",
    "1e309",
    "NaN",
    "-inf",
    "2026-02-30T25:61",
    "%3Cscript%3Ealert(1)%3C%2Fscript%3E",
    "x" * 20000,
]
EXTRA_QUERY = ("page", "seed", "next", "anonymous", "filter", "status", "quiz", "question", "q")
FIELD = re.compile(r'<(?:input|select|textarea)\b[^>]*\bname="([^"]+)"')


@dataclass
class Site:
    pages: list[str]
    users: dict[str, User]


def _site() -> Site:
    staff, questions = staffed_quiz(SINGLE, NUMERIC, CODE, VIVA)
    attempt = submitted_attempt(
        staff.quiz, staff.student, {0: {"choice": 0}, 1: {"value": 2}, 3: {"text": "grad"}}
    )
    viva = attempt.responses.get(position=3)
    mark_create(
        response_id=viva.pk,
        marker=staff.examiner,
        data=MarkInput(levels=[1], comment="A start."),
        now=timezone.now(),
    )
    quiz, course = staff.quiz.pk, staff.course.pk
    pages = [
        "/",
        "/signin/",
        "/signout/",
        "/password/",
        "/dashboard/",
        f"/quizzes/{quiz}/start/",
        f"/attempts/{attempt.pk}/",
        f"/attempts/{attempt.pk}/result/",
        "/code-runs/",
        "/code-runs/no-such-run/",
        f"/questions/{questions[0].pk}/preview/",
        f"/examiner/quizzes/{quiz}/viva/",
        "/examiner/marking/",
        f"/examiner/marking/{viva.pk}/",
        f"/examiner/quizzes/{quiz}/report/",
        f"/examiner/quizzes/{quiz}/release/",
        f"/author/courses/{course}/quizzes/new/",
        f"/author/quizzes/{quiz}/",
        f"/author/quizzes/{quiz}/access/",
        f"/author/courses/{course}/questions/",
        f"/author/courses/{course}/questions/new/",
        f"/author/questions/{questions[0].pk}/",
        "/lti/login/",
        "/lti/launch/",
        "/lti/deep-link/",
        f"/lti/quizzes/{quiz}/",
        "/attempts/2147483648/",
        "/examiner/marking/9223372036854775808/",
    ]
    users = {
        "student": staff.student,
        "examiner": staff.examiner,
        "author": member(staff.course, Role.AUTHOR),
        "outsider": staff.outsider,
    }
    return Site(pages, users)


def _fields(client: Client, page: str) -> list[str]:
    reply = client.get(page)
    text = reply.content.decode(errors="replace") if reply.status_code == 200 else ""
    return sorted({name for name in FIELD.findall(text) if name != "csrfmiddlewaretoken"})


def _bodies(fields: list[str]) -> Iterator[str]:
    for value in HOSTILE:
        yield "&".join(f"{quote(name)}={value}" for name in fields)


def _client(user: User | None) -> Client:
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


def test_no_page_answers_hostile_input_with_a_500() -> None:
    site = _site()
    failures: list[str] = []
    for role, user in [("anonymous", None), *site.users.items()]:
        for page in site.pages:
            cache.clear()  # the sign-in lockout would hide what a POST does after a few tries
            client = _client(user)
            fields = _fields(client, page) or ["value"]
            for body in _bodies([*fields, *EXTRA_QUERY]):
                got = client.get(f"{page}?{body}")
                if got.status_code >= 500:
                    failures.append(f"{role} GET {page}?{body[:80]} -> {got.status_code}")
            for body in _bodies(fields):
                sent = client.post(page, body, content_type="application/x-www-form-urlencoded")
                if sent.status_code >= 500:
                    failures.append(f"{role} POST {page} {body[:80]} -> {sent.status_code}")
                if user is not None and page == "/signout/":
                    client.force_login(user)
    cache.clear()
    assert not failures, "\n".join(failures[:40])


@pytest.mark.parametrize(
    "target",
    ["https://evil.example/", "//evil.example/", "/\\evil.example/", "https:evil.example"],
)
def test_sign_in_never_sends_a_user_to_another_site(target: str) -> None:
    cache.clear()
    user = User.objects.create_user("sam", password="a long enough password")
    reply = Client().post(
        f"/signin/?next={quote(target)}",
        {"username": "sam", "password": "a long enough password", "next": target},
    )
    assert reply.status_code == 302
    assert reply["Location"].startswith("/")
    assert not reply["Location"].startswith("//")
    assert "evil.example" not in reply["Location"]
    assert user.pk

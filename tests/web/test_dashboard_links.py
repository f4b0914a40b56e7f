"""A new examiner or author reaches every page of their role by following links from the
dashboard alone, as a first-time user does; each link works."""

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from quizbank.models import ReleasePolicy, Role
from tests.grading.content import VIVA
from tests.grading.factories import member, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db
HREF = re.compile(r'href="(/[^"#]*)"')


def _crawl(user: User, depth: int = 2) -> dict[str, int]:
    """Every page reachable from the dashboard within `depth` clicks, and its status."""
    client = Client()
    client.force_login(user)
    seen: dict[str, int] = {}
    frontier = ["/dashboard/"]
    for _ in range(depth + 1):
        found: list[str] = []
        for url in frontier:
            if url in seen or url.startswith(("/static/", "/admin/", "/signout/")):
                continue
            reply = client.get(url.replace("&amp;", "&"), follow=True)
            seen[url] = reply.status_code
            if reply.status_code == 200 and "text/html" in reply["Content-Type"]:
                found += HREF.findall(reply.content.decode())
        frontier = found
    return seen


def _reached(seen: dict[str, int], pattern: str) -> bool:
    return any(re.fullmatch(pattern, url.split("?")[0]) for url in seen)


def test_an_examiner_reaches_marking_report_release_and_viva_from_the_dashboard() -> None:
    staff, _ = staffed_quiz(VIVA)
    staff.quiz.release_policy = ReleasePolicy.MANUAL  # a live viva refuses "immediately"
    staff.quiz.save()
    submitted_attempt(staff.quiz, staff.student, {0: {"text": "It adds."}})
    seen = _crawl(staff.examiner)
    assert all(status == 200 for status in seen.values()), {
        u: s for u, s in seen.items() if s != 200
    }
    quiz = staff.quiz.pk
    for page in (
        "/examiner/marking/",
        r"/examiner/marking/\d+/",
        f"/examiner/quizzes/{quiz}/report/",
        f"/examiner/quizzes/{quiz}/release/",
        f"/examiner/quizzes/{quiz}/viva/",
        f"/quizzes/{quiz}/preview/",
    ):
        assert _reached(seen, page), (page, sorted(seen))


def test_an_author_reaches_the_builder_and_access_pages_from_the_dashboard() -> None:
    staff, _ = staffed_quiz(VIVA)
    author = member(staff.course, Role.AUTHOR)
    seen = _crawl(author, depth=1)
    assert all(status == 200 for status in seen.values()), {
        u: s for u, s in seen.items() if s != 200
    }
    for page in (
        f"/author/courses/{staff.course.pk}/quizzes/new/",
        f"/author/quizzes/{staff.quiz.pk}/",
        f"/author/quizzes/{staff.quiz.pk}/access/",
    ):
        assert _reached(seen, page), (page, sorted(seen))


def test_the_home_page_offers_the_admin_only_to_staff() -> None:
    student, staff = (
        User.objects.create(username="home-student"),
        User.objects.create(username="home-staff", is_staff=True),
    )
    pages = {}
    for user in (student, staff):
        client = Client()
        client.force_login(user)
        pages[user.username] = client.get("/").content.decode()
    assert 'href="/admin/"' not in pages["home-student"]
    assert 'href="/admin/"' in pages["home-staff"]


def test_no_live_viva_is_offered_for_a_quiz_that_releases_at_once() -> None:
    staff, _ = staffed_quiz(VIVA)
    client = Client()
    client.force_login(staff.examiner)
    page = client.get("/dashboard/").content.decode()
    assert f"/examiner/quizzes/{staff.quiz.pk}/viva/" not in page

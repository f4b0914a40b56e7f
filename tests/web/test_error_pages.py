"""What a person sees when a page refuses: the site's own pages with the reason, and a
message for input that changes nothing."""

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from quizbank.models import Role
from tests.grading.factories import member, new_course, new_quiz, new_user

pytestmark = pytest.mark.django_db


def _signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_page_the_role_does_not_allow_is_a_site_page_with_the_reason() -> None:
    student = member(new_course(), Role.STUDENT)
    reply = _signed_in(student).get("/examiner/marking/")
    assert reply.status_code == 403
    assert "Your role does not allow this." in reply.text
    assert "Signed in as" in reply.text  # the site's layout, with its navigation


def test_an_unknown_page_is_a_site_page() -> None:
    reply = _signed_in(new_user()).get("/no/such/page/")
    assert reply.status_code == 404
    assert "Back to your dashboard" in reply.text


def test_an_unknown_page_is_a_site_page_under_debug_too(settings: Any) -> None:
    """`make run` serves with DEBUG on, whose own 404 page lists every URL pattern."""
    settings.DEBUG = True
    reply = _signed_in(new_user()).get("/no/such/page/")
    assert reply.status_code == 404
    assert "Back to your dashboard" in reply.text
    assert "URLconf" not in reply.text


def test_a_form_address_opened_as_a_page_says_so_and_keeps_allow() -> None:
    course = new_course()
    author = member(course, Role.AUTHOR)
    reply = _signed_in(author).get("/author/questions/1/solution-checks/")
    assert reply.status_code == 405
    assert "This address is not a page" in reply.text
    assert "POST" in reply["Allow"]


def test_an_empty_sign_in_says_what_is_missing() -> None:
    reply = Client().post("/signin/", {"username": "", "password": ""})
    assert reply.status_code == 200
    assert "Username: This field is required." in reply.text
    assert "Password: This field is required." in reply.text


def test_an_unknown_report_filter_is_a_message_not_ignored() -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    reply = _signed_in(member(course, Role.EXAMINER)).get(
        f"/examiner/quizzes/{quiz.pk}/report/?attempts=bogus"
    )
    assert reply.status_code == 200
    assert "Unknown attempts filter; choose one of: all, first." in reply.text


def test_a_new_password_of_a_megabyte_is_refused() -> None:
    user = new_user()
    user.set_password("old-password-4x!")
    user.save()
    huge = "p" * 1_000_001
    reply = _signed_in(user).post(
        "/password/",
        {"old_password": "old-password-4x!", "new_password1": huge, "new_password2": huge},
    )
    assert reply.status_code == 200
    assert "use at most 1,000" in reply.text
    user.refresh_from_db()
    assert user.check_password("old-password-4x!")


def test_a_sign_in_from_a_second_tab_goes_on_to_the_dashboard() -> None:
    """Signed in in one tab, the other tab's sign-in form carries a stale CSRF token."""
    user = new_user()
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    reply = client.post("/signin/", {"username": user.username, "password": "x", "next": ""})
    assert reply.status_code == 302
    assert reply["Location"] == "/dashboard/"
    onward = client.post("/signin/", {"username": "u", "password": "x", "next": "/attempts/3/"})
    assert onward["Location"] == "/attempts/3/"
    away = client.post("/signin/", {"username": "u", "password": "x", "next": "https://evil.test/"})
    assert away["Location"] == "/dashboard/"


def test_any_other_stale_form_is_the_sites_page_saying_what_to_do() -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(new_user())
    reply = client.post("/quizzes/1/start/")
    assert reply.status_code == 403
    assert "This form has expired" in reply.text
    assert "reload the page" in reply.text
    assert "CSRF verification failed" not in reply.text


@pytest.mark.parametrize(
    ("referer", "next_page"),
    [
        ("http://testserver/dashboard/?tab=2", "/dashboard/"),
        ("http://testserver/attempts/9/", "/attempts/9/"),
        ("https://elsewhere.test/dashboard/", "/dashboard/"),
        (None, "/dashboard/"),
    ],
)
def test_a_form_sent_after_signing_out_returns_to_its_page_after_signing_in(
    referer: str | None, next_page: str
) -> None:
    """The start button's address only answers a POST: after signing in, the visitor goes
    back to the page the button was on, never to that address."""
    headers = {"Referer": referer} if referer else {}
    reply = Client().post("/quizzes/1/start/", headers=headers)
    assert reply.status_code == 302
    assert reply["Location"] == f"/signin/?next={next_page}"

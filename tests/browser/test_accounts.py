"""Everyone: sign in from the home page, come back to the page asked for, change the password,
sign out; the demo users can sign in; every page passes axe-core and fits 375 px."""

import re

from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from tests.browser.conftest import Site, assert_accessible, screenshots


def _sign_in(page: Page, username: str, password: str) -> None:
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def test_a_demo_student_signs_in_from_home_and_sees_the_dashboard(
    site: Site, demo: dict[str, User]
) -> None:
    page = site.page(path="/")
    assert_accessible(page)
    screenshots(page, "home")
    page.get_by_role("link", name="Sign in").first.click()
    assert_accessible(page)
    screenshots(page, "signin")
    _sign_in(page, "student", "student-demo-pass")
    expect(page).to_have_url(re.compile(r"/dashboard/$"))
    expect(page.get_by_role("heading", name="Your quizzes")).to_be_visible()
    expect(
        page.get_by_role("button", name="Start Fundamentals check: tensors and autograd")
    ).to_be_visible()
    expect(page.get_by_role("heading", name="Examining")).to_have_count(0)
    assert_accessible(page)
    screenshots(page, "dashboard-student")


def test_each_demo_user_sees_the_sections_of_their_roles(site: Site, demo: dict[str, User]) -> None:
    for username, heading in (("examiner", "Examining"), ("author", "Authoring")):
        page = site.context().new_page()
        page.goto("/signin/")
        _sign_in(page, username, f"{username}-demo-pass")
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
        expect(page.get_by_role("heading", name="Your quizzes")).to_have_count(0)
        screenshots(page, f"dashboard-{username}")
    page = site.context().new_page()
    page.goto("/signin/")
    _sign_in(page, "admin", "admin-demo-pass")
    for heading in ("Examining", "Authoring"):
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
    # Every role to manage a course, but enrolled as no course's student: no quizzes to take.
    expect(page.get_by_role("heading", name="Your quizzes")).to_have_count(0)


def test_a_page_that_needs_a_user_comes_back_after_sign_in(
    site: Site, demo: dict[str, User]
) -> None:
    page = site.page(path="/dashboard/")
    expect(page).to_have_url(re.compile(r"/signin/\?next=/dashboard/$"))
    _sign_in(page, "student", "wrong password")
    expect(page.get_by_role("alert")).to_contain_text("enter a correct username and password")
    assert_accessible(page)
    _sign_in(page, "student", "student-demo-pass")
    expect(page).to_have_url(re.compile(r"/dashboard/$"))


def test_a_user_changes_the_password_and_signs_out(site: Site, demo: dict[str, User]) -> None:
    page = site.page(demo["student"], "/dashboard/")
    page.get_by_role("link", name="Change password").click()
    assert_accessible(page)
    screenshots(page, "password-change")
    page.get_by_label("Old password").fill("student-demo-pass")
    page.get_by_label("New password", exact=True).fill("a-new-long-passphrase-42")
    page.get_by_label("New password confirmation").fill("a-new-long-passphrase-42")
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_role("heading", name="Password changed")).to_be_visible()
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("link", name="Sign in").first).to_be_visible()
    page.goto("/signin/")
    _sign_in(page, "student", "a-new-long-passphrase-42")
    expect(page).to_have_url(re.compile(r"/dashboard/$"))

"""API clients in the admin: a client is added by name with its service account, a token
is issued on the client's page and shown once (never stored in plain text), works, and
is refused once revoked; only staff with the right permissions reach any of it."""

import re

from django.contrib.auth.models import Permission, User
from django.test import Client

from lms.models import ApiClient, ApiToken
from tests.lms.conftest import bearer


def _admin() -> Client:
    browser = Client()
    browser.force_login(User.objects.create_superuser("root", "root@uni.example", "x-pass-12"))
    return browser


def _issued_key(html: str) -> str:
    found = re.search(r'<code id="new-token">(vbk_[^<]+)</code>', html)
    assert found, html
    return found.group(1)


def test_an_admin_adds_a_client_and_issues_a_token_shown_once(db: None) -> None:
    browser = _admin()
    added = browser.post("/admin/lms/apiclient/add/", {"name": "canvas.uni.example"})
    assert added.status_code == 302, added.content
    client = ApiClient.objects.get(name="canvas.uni.example")
    assert not client.user.has_usable_password()
    assert client.user.has_perm("quizbank.add_course")
    page = browser.get(f"/admin/lms/apiclient/{client.pk}/change/")
    assert f"/admin/lms/apiclient/{client.pk}/token/" in page.content.decode()

    url = f"/admin/lms/apiclient/{client.pk}/token/"
    shown = browser.post(url, {"scopes": ["roster:manage", "grades:read"]})
    assert shown.status_code == 200
    assert "no-store" in shown["Cache-Control"]  # admin_view's never_cache
    key = _issued_key(shown.content.decode())
    token = ApiToken.objects.get(client=client)
    assert token.scopes == ["grades:read", "roster:manage"]
    assert key not in {token.key_hash, token.prefix}
    assert bearer(key).get("/api/users/").status_code == 200
    listed = browser.get(f"/admin/lms/apitoken/?client__id__exact={client.pk}").content.decode()
    assert token.prefix in listed
    assert key not in listed


def test_an_admin_issues_a_token_that_expires(db: None) -> None:
    browser = _admin()
    browser.post("/admin/lms/apiclient/add/", {"name": "moodle"})
    client = ApiClient.objects.get()
    url = f"/admin/lms/apiclient/{client.pk}/token/"
    refused = browser.post(url, {"scopes": ["grades:read"], "lifetime_days": "0"})
    assert "Ensure this value is greater than or equal to 1" in refused.content.decode()
    assert not ApiToken.objects.exists()
    shown = browser.post(url, {"scopes": ["grades:read"], "lifetime_days": "90"})
    token = ApiToken.objects.get()
    assert token.expires_at is not None
    assert "Refused after" in shown.content.decode()
    listed = browser.get("/admin/lms/apitoken/").content.decode()
    assert "Expires at" in listed or "expires at" in listed.lower()


def test_a_token_needs_at_least_one_scope(db: None) -> None:
    browser = _admin()
    browser.post("/admin/lms/apiclient/add/", {"name": "moodle"})
    client = ApiClient.objects.get()
    again = browser.post(f"/admin/lms/apiclient/{client.pk}/token/", {})
    assert again.status_code == 200
    assert "This field is required" in again.content.decode()
    assert not ApiToken.objects.exists()
    assert browser.post(f"/admin/lms/apiclient/{client.pk + 1}/token/").status_code == 404


def test_a_token_revoked_in_the_admin_is_refused(db: None) -> None:
    browser = _admin()
    browser.post("/admin/lms/apiclient/add/", {"name": "moodle"})
    client = ApiClient.objects.get()
    shown = browser.post(f"/admin/lms/apiclient/{client.pk}/token/", {"scopes": ["roster:manage"]})
    key = _issued_key(shown.content.decode())
    token = ApiToken.objects.get()
    body = {"action": "revoke", "_selected_action": [token.pk]}
    assert browser.post("/admin/lms/apitoken/", body).status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert bearer(key).get("/api/users/").status_code == 401


def test_staff_without_the_change_permission_cannot_issue_tokens(db: None) -> None:
    root = _admin()
    root.post("/admin/lms/apiclient/add/", {"name": "moodle"})
    client = ApiClient.objects.get()
    viewer = User.objects.create_user("viewer", password="x-pass-12", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_apiclient"))
    browser = Client()
    browser.force_login(viewer)
    url = f"/admin/lms/apiclient/{client.pk}/token/"
    assert browser.post(url, {"scopes": ["roster:manage"]}).status_code == 403
    assert Client().get(url).status_code == 302  # anonymous: to the admin's sign-in
    assert not ApiToken.objects.exists()

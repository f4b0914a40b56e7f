"""A platform registered with its public keys pasted (a JWKS document or a PEM public key)
instead of a JWKS URL, over the API and in the admin: what is pasted is checked with a
clear error, and launches are verified with those keys."""

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from lti1p3platform.registration import Registration
from lti_tool.models import LtiRegistration
from rest_framework.test import APIClient

from lms.models import ExternalIdentity, LtiPlatformKeys
from tests.grading.factories import api_as
from tests.lms.lti_world import Lti, launch
from tests.lms.platform import new_private_key, public_key_of


def _admin() -> User:
    return User.objects.create_superuser("root", "root@uni.example", "x-long-pass-1")


def _paste(lti: Lti, api: APIClient, keys: str) -> Any:
    registration = LtiRegistration.objects.get()
    body = {"keyset_url": "", "public_keys": keys}
    return api.patch(f"/api/lti/registrations/{registration.pk}/", body, format="json")


def _jwks_of(private_pem: str) -> str:
    return json.dumps({"keys": [Registration.get_jwk(public_key_of(private_pem))]})


def _launched(lti: Lti, **conf: Any) -> bool:
    reply, _ = launch(lti, lti.conf(**conf) if conf else None)
    return bool(reply.status_code == 302 and ExternalIdentity.objects.exists())


def test_a_pasted_jwks_verifies_launches_by_kid(lti: Lti) -> None:
    reply = _paste(lti, api_as(_admin()), _jwks_of(lti.settings.private_key))
    assert reply.status_code == 200, reply.content
    assert reply.json()["keyset_url"] == ""
    assert json.loads(reply.json()["public_keys"])["keys"][0]["kty"] == "RSA"
    assert not _launched(lti, kid="not-in-the-pasted-set")
    assert _launched(lti)


def test_a_pasted_pem_key_verifies_launches_whatever_their_kid(lti: Lti) -> None:
    pem = public_key_of(lti.settings.private_key)
    assert _paste(lti, api_as(_admin()), pem).status_code == 200
    assert _launched(lti, kid="moodle-2024-key")


def test_a_launch_signed_with_another_key_than_the_pasted_one_is_refused(lti: Lti) -> None:
    assert _paste(lti, api_as(_admin()), public_key_of(new_private_key())).status_code == 200
    reply, _ = launch(lti)
    assert reply.status_code == 403
    assert not ExternalIdentity.objects.exists()


BAD_PASTES = [
    ("hello", "Paste a JWKS document"),
    ("{not json", "not valid JSON"),
    ('{"keys": []}', 'no "keys" list'),
    ('{"keys": [{"kty": "EC", "kid": "1"}]}', "not an RSA key"),
    ('{"keys": [{"kty": "RSA", "n": "AQAB", "e": "AQAB"}]}', "has no `kid`"),
    ('{"keys": [{"kty": "RSA", "kid": "1", "e": "AQAB"}]}', "`n` is missing"),
    ("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----", "cannot be read"),
]


@pytest.mark.parametrize(("pasted", "why"), BAD_PASTES)
def test_a_paste_that_is_no_public_key_is_refused_naming_the_field(
    lti: Lti, pasted: str, why: str
) -> None:
    reply = _paste(lti, api_as(_admin()), pasted)
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert why in error["fields"]["public_keys"][0]
    assert LtiRegistration.objects.get().keyset_url  # nothing changed
    assert not LtiPlatformKeys.objects.exists()


def test_a_private_key_is_refused_in_either_form(lti: Lti) -> None:
    api = api_as(_admin())
    private = lti.settings.private_key
    jwk = {**Registration.get_jwk(public_key_of(private)), "d": "AQAB"}
    for pasted in (private, json.dumps({"keys": [jwk]})):
        reply = _paste(lti, api, pasted)
        assert reply.status_code == 400
        assert "private key" in reply.json()["error"]["message"]


def test_a_registration_needs_exactly_one_of_url_and_keys(lti: Lti) -> None:
    api = api_as(_admin())
    registration = LtiRegistration.objects.get()
    url = f"/api/lti/registrations/{registration.pk}/"
    both = api.patch(url, {"public_keys": _jwks_of(new_private_key())}, format="json")
    assert both.status_code == 400
    assert set(both.json()["error"]["fields"]) == {"keyset_url", "public_keys"}
    neither = api.patch(url, {"keyset_url": ""}, format="json")
    assert neither.status_code == 400
    assert "one is needed" in neither.json()["error"]["message"]
    assert not LtiPlatformKeys.objects.exists()


def _posted(form: Any) -> dict[str, Any]:
    """What a browser posts for the form as the admin page shows it."""
    data = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if hasattr(value, "pk"):
            value = value.pk
        if value is True:
            value = "on"
        if value not in (None, False):
            data[form.add_prefix(name)] = value
    return data


def _admin_form(browser: Client, keys: str) -> Any:
    registration = LtiRegistration.objects.get()
    url = f"/admin/lti_tool/ltiregistration/{registration.pk}/change/"
    page = browser.get(url)
    assert page.status_code == 200
    data = {**_posted(page.context["adminform"].form), "keyset_url": "", "public_keys": keys}
    for inline in page.context["inline_admin_formsets"]:
        data.update(_posted(inline.formset.management_form))
        for form in inline.formset.forms:
            data.update(_posted(form))
    return browser.post(url, data)


def test_the_admin_takes_pasted_keys_and_shows_what_is_wrong(lti: Lti) -> None:
    browser = Client()
    browser.force_login(_admin())
    private = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"
    wrong = _admin_form(browser, private)
    assert wrong.status_code == 200
    assert "paste the platform&#x27;s public key only" in wrong.content.decode()
    assert not LtiPlatformKeys.objects.exists()
    saved = _admin_form(browser, public_key_of(lti.settings.private_key))
    assert saved.status_code == 302, saved.context["adminform"].form.errors
    assert LtiRegistration.objects.get().keyset_url == ""
    assert _launched(lti, kid="moodle-2024-key")

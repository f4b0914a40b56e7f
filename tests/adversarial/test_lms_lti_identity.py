"""A hostile API client against LTI sign-in: the username a launch would make for a
platform's user is predictable (a hash of issuer and sub), so a client may provision a
user with it first. The launch must still sign the platform's user in as their own new
account, never as the squatter's, and never fail with a 500."""

import hashlib

from django.contrib.auth.models import User

from lms.models import ExternalIdentity
from quizbank.models import CourseMembership
from tests.lms.conftest import MakeClient
from tests.lms.lti_world import Lti, launch
from tests.lms.platform import ISSUER


def test_a_squatted_lti_username_neither_breaks_nor_hijacks_the_launch(
    lti: Lti, make_client: MakeClient
) -> None:
    digest = hashlib.sha256(f"lti:{ISSUER} moodle-user-7".encode()).hexdigest()[:16]
    _, api = make_client(scopes=["roster:manage"])
    made = api.post(
        "/api/users/",
        {"external_id": "squatter", "username": f"lti-{digest}", "password": "Sq-uatter-2026!"},
        format="json",
    )
    assert made.status_code == 201, made.content
    squatter = User.objects.get(username=f"lti-{digest}")

    reply, _ = launch(lti)

    assert reply.status_code == 302, reply.content
    identity = ExternalIdentity.objects.get(namespace=f"lti:{ISSUER}", external_id="moodle-user-7")
    assert identity.user != squatter
    assert not CourseMembership.objects.filter(user=squatter).exists()
    assert int(lti.browser.session["_auth_user_id"]) == identity.user.pk

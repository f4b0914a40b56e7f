"""Account takeover through an outside system: a user an LMS provisioned (or launched)
who was later made a site administrator in Vivabank must not stay in the LMS's hands. A
client's roster token could otherwise set the admin's password and sign in with it, or
deactivate the admin; a platform could sign anyone in as them with a launch."""

from django.contrib.auth.models import User

from lms.models import ExternalIdentity
from tests.lms.conftest import MakeClient
from tests.lms.lti_world import Lti, launch
from tests.lms.platform import ISSUER

PASSWORD = "Taken-0ver-2026!"


def _promoted(user: User) -> None:
    user.is_staff = user.is_superuser = True
    user.save()


def test_a_client_cannot_set_the_password_of_a_user_made_site_admin(
    make_client: MakeClient,
) -> None:
    _, api = make_client(scopes=["roster:manage"])
    assert api.post("/api/users/", {"external_id": "t-1"}, format="json").status_code == 201
    admin = ExternalIdentity.objects.get(external_id="t-1").user
    _promoted(admin)

    reply = api.patch("/api/users/t-1/", {"password": PASSWORD}, format="json")

    assert reply.status_code == 403, reply.content
    assert reply.json()["error"]["code"] == "site_admin_account"
    admin.refresh_from_db()
    assert not admin.check_password(PASSWORD)
    signin = {"username": admin.username, "password": PASSWORD}
    assert api.post("/api/auth/token/", signin, format="json").status_code != 200


def test_a_client_cannot_deactivate_or_rename_a_site_admin(make_client: MakeClient) -> None:
    _, api = make_client(scopes=["roster:manage"])
    api.post("/api/users/", {"external_id": "t-2"}, format="json")
    admin = ExternalIdentity.objects.get(external_id="t-2").user
    _promoted(admin)

    assert api.delete("/api/users/t-2/").status_code == 403
    renamed = api.patch("/api/users/t-2/", {"email": "evil@lms.example"}, format="json")
    assert renamed.status_code == 403
    admin.refresh_from_db()
    assert admin.is_active
    assert admin.email != "evil@lms.example"


def test_a_platform_cannot_sign_in_as_a_user_made_site_admin(lti: Lti) -> None:
    launch(lti, user_id="teacher-1")
    admin = ExternalIdentity.objects.get(namespace=f"lti:{ISSUER}", external_id="teacher-1").user
    _promoted(admin)
    browser = lti.browser
    browser.logout()

    reply, _ = launch(lti, user_id="teacher-1")

    assert reply.status_code == 403
    assert "_auth_user_id" not in browser.session

"""LTI 1.3 launches from a real platform (lti1p3platform), its JWKS served over HTTP:
login initiation, a signed launch that signs the user in and opens the quiz, and every
refused launch refused clearly with nothing created."""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import pytest
from django.contrib.auth.models import User
from django.test import Client
from lti1p3platform.registration import Registration
from lti_tool.models import Key, LtiDeployment, LtiRegistration

from lms.models import ExternalIdentity, LtiCourseGrant, LtiNonceUse
from quizbank.models import CourseMembership, Quiz
from tests.grading.factories import new_quiz
from tests.lms.platform import (
    CLIENT_ID,
    DEPLOYMENT_ID,
    INSTRUCTOR,
    ISSUER,
    LEARNER,
    PlatformConf,
    PlatformSettings,
    login_url,
    new_private_key,
    path_and_query,
    platform_http,
    public_key_of,
    signed_launch,
)


@dataclass
class Lti:
    quiz: Quiz
    settings: PlatformSettings
    browser: Client

    def conf(self, **changes: Any) -> PlatformConf:
        settings = PlatformSettings(**{**self.settings.__dict__, **changes})
        return PlatformConf(settings=settings)


@pytest.fixture
def lti(db: None) -> Iterator[Lti]:
    tool_key = Key.objects.generate()
    private = new_private_key()
    jwks = {"/jwks": {"keys": [Registration.get_jwk(public_key_of(private))]}}
    with platform_http(jwks) as base:
        registration = LtiRegistration.objects.create(
            name="Moodle",
            issuer=ISSUER,
            client_id=CLIENT_ID,
            auth_url="https://lms.uni.example/mod/lti/auth.php",
            token_url=f"{base}/token",
            keyset_url=f"{base}/jwks",
        )
        LtiDeployment.objects.create(
            registration=registration, deployment_id=DEPLOYMENT_ID, is_active=True
        )
        quiz = new_quiz(title="Week 1: tensors")
        LtiCourseGrant.objects.create(registration=registration, course=quiz.course)
        tool_jwks = {"keys": [Registration.get_jwk(tool_key.public_key)]}
        yield Lti(quiz, PlatformSettings(private_key=private, tool_jwks=tool_jwks), Client())


def _launch(
    lti: Lti,
    conf: PlatformConf | None = None,
    *,
    roles: list[str] | None = None,
    user_id: str = "moodle-user-7",
    state: str | None = None,
    expires_in: int = 300,
) -> tuple[Any, dict[str, Any]]:
    login = lti.browser.get(path_and_query(login_url(lti.conf(), user_id)))
    assert login.status_code == 302, login.content
    data = signed_launch(
        conf or lti.conf(),
        login["Location"],
        user_id=user_id,
        roles=roles or [LEARNER],
        custom={"quiz_id": str(lti.quiz.pk)},
        expires_in=expires_in,
    )
    body = {"id_token": data["id_token"], "state": state or data["state"]}
    return lti.browser.post(urlparse(data["launch_url"]).path, body), body


def test_a_learner_lands_in_the_quiz_signed_in(lti: Lti) -> None:
    reply, _ = _launch(lti)
    assert reply.status_code == 302, reply.content
    assert reply["Location"] == f"/lti/quizzes/{lti.quiz.pk}/"
    page = lti.browser.get(reply["Location"])
    assert page.status_code == 200
    assert "Week 1: tensors" in page.content.decode()
    identity = ExternalIdentity.objects.get(namespace=f"lti:{ISSUER}", external_id="moodle-user-7")
    assert identity.user.email == "ada@uni.example"
    roles = CourseMembership.objects.filter(user=identity.user, course=lti.quiz.course)
    assert list(roles.values_list("role", flat=True)) == ["student"]


def test_a_second_launch_matches_the_same_user(lti: Lti) -> None:
    _launch(lti)
    _launch(lti)
    assert ExternalIdentity.objects.filter(external_id="moodle-user-7").count() == 1
    assert User.objects.filter(external_identities__external_id="moodle-user-7").count() == 1


def test_an_instructor_becomes_an_examiner(lti: Lti) -> None:
    _launch(lti, roles=[INSTRUCTOR], user_id="teacher-1")
    user = User.objects.get(external_identities__external_id="teacher-1")
    roles = CourseMembership.objects.filter(user=user, course=lti.quiz.course)
    assert list(roles.values_list("role", flat=True)) == ["examiner"]


def _rows() -> tuple[int, ...]:
    return (
        User.objects.count(),
        ExternalIdentity.objects.count(),
        CourseMembership.objects.count(),
        LtiDeployment.objects.count(),
    )


def _refused(reply: Any, words: str, before: tuple[int, ...]) -> None:
    assert reply.status_code == 403
    assert words in reply.content.decode()
    assert _rows() == before
    assert "_auth_user_id" not in reply.wsgi_request.session


def test_a_replayed_launch_is_refused(lti: Lti) -> None:
    first, body = _launch(lti)
    assert first.status_code == 302
    before = _rows()
    replayed = Client().post("/lti/launch/", body)  # the same id_token and state, elsewhere
    _refused(replayed, "already used", before)
    cookie_replay = lti.browser.post("/lti/launch/", body)  # and from the same browser
    assert cookie_replay.status_code == 403
    assert LtiNonceUse.objects.count() == 1


def test_a_launch_signed_with_another_key_under_the_platforms_kid_is_refused(lti: Lti) -> None:
    kid = Registration.get_jwk(public_key_of(lti.settings.private_key))["kid"]
    forger = lti.conf(private_key=new_private_key(), kid=kid)
    before = _rows()
    reply, _ = _launch(lti, forger)
    _refused(reply, "Signature verification failed", before)


def test_a_launch_under_an_unknown_kid_is_refused(lti: Lti) -> None:
    before = _rows()
    reply, _ = _launch(lti, lti.conf(private_key=new_private_key()))
    _refused(reply, "Unable to find public key", before)


def test_a_launch_from_an_unknown_deployment_is_refused(lti: Lti) -> None:
    before = _rows()
    reply, _ = _launch(lti, lti.conf(deployment_id="somewhere-else"))
    _refused(reply, "Unable to find deployment", before)


def test_an_expired_launch_is_refused(lti: Lti) -> None:
    before = _rows()
    reply, _ = _launch(lti, expires_in=-120)
    _refused(reply, "Signature has expired", before)


def test_a_launch_for_another_audience_is_refused(lti: Lti) -> None:
    before = _rows()
    reply, _ = _launch(lti, lti.conf(client_id="another-tool"))
    _refused(reply, "Registration not found", before)


def test_a_launch_whose_state_does_not_match_is_refused(lti: Lti) -> None:
    before = _rows()
    reply, _ = _launch(lti, state="forged-state")
    _refused(reply, "State not found", before)


def test_a_launch_into_a_course_not_granted_to_the_platform_is_refused(lti: Lti) -> None:
    LtiCourseGrant.objects.all().delete()
    before = _rows()
    reply, _ = _launch(lti)
    _refused(reply, "names no quiz this platform may open", before)
    assert LtiNonceUse.objects.count() == 0


def test_the_jwks_lists_both_keys_while_one_replaces_the_other(lti: Lti) -> None:
    old = Key.objects.get()
    new = Key.objects.generate()
    kids = {k["kid"] for k in lti.browser.get("/lti/jwks/").json()["keys"]}
    assert len(kids) == 2
    old.is_active = False
    old.save()
    assert len(lti.browser.get("/lti/jwks/").json()["keys"]) == 1
    assert new.is_active

"""An LTI world for the tests: Vivabank registered with a real lti1p3platform platform
whose JWKS, token endpoint and score service answer over HTTP on 127.0.0.1."""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import pytest
from django.test import Client
from lti1p3platform.registration import Registration
from lti_tool.models import Key, LtiDeployment, LtiRegistration

from lms.models import LtiCourseGrant
from quizbank.models import Quiz
from tests.grading.factories import new_quiz
from tests.lms.platform import (
    CLIENT_ID,
    CONTEXT_ID,
    DEPLOYMENT_ID,
    ISSUER,
    LEARNER,
    GradeService,
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
    base: str
    grades: GradeService

    def conf(self, **changes: Any) -> PlatformConf:
        settings = PlatformSettings(**{**self.settings.__dict__, **changes})
        return PlatformConf(settings=settings)


@pytest.fixture
def lti(db: None) -> Iterator[Lti]:
    tool_key = Key.objects.generate()
    private = new_private_key()
    jwks = {"/jwks": {"keys": [Registration.get_jwk(public_key_of(private))]}}
    grades = GradeService()
    with platform_http(jwks, grades) as base:
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
        # Bound to the LMS course the launches come from, as docs/lms.md asks.
        LtiCourseGrant.objects.create(
            registration=registration, course=quiz.course, context_id=CONTEXT_ID
        )
        assert tool_key.is_active
        settings = PlatformSettings(private_key=private, tool_jwks=Key.objects.as_jwks())
        grades.conf = PlatformConf(settings=settings)
        grades.conf.get_registration()
        yield Lti(quiz, settings, Client(), base, grades)


def launch(
    lti: Lti,
    conf: PlatformConf | None = None,
    *,
    roles: list[str] | None = None,
    user_id: str = "moodle-user-7",
    state: str | None = None,
    expires_in: int = 300,
    line_item: str = "",
    deep_link_return: str = "",
    memberships_url: str = "",
    extra_claims: dict[str, Any] | None = None,
) -> tuple[Any, dict[str, Any]]:
    """Login initiation, the platform's signed answer, the launch POST: (reply, form)."""
    login = lti.browser.get(path_and_query(login_url(lti.conf(), user_id)))
    assert login.status_code == 302, login.content
    data = signed_launch(
        conf or lti.conf(),
        login["Location"],
        user_id=user_id,
        roles=roles or [LEARNER],
        custom={"quiz_id": str(lti.quiz.pk)},
        expires_in=expires_in,
        line_item=line_item,
        deep_link_return=deep_link_return,
        memberships_url=memberships_url,
        extra_claims=extra_claims,
    )
    body = {"id_token": data["id_token"], "state": state or data["state"]}
    return lti.browser.post(urlparse(data["launch_url"]).path, body), body

"""Two registrations of one issuer (as every school on a cloud LMS shares its issuer),
each with its own client id, deployment and granted course. A launch may open only the
courses of the registration that its client id (aud) and deployment both belong to."""

from typing import Any

from lti_tool.models import LtiDeployment, LtiRegistration

from lms.models import ExternalIdentity, LtiCourseGrant
from quizbank.models import Quiz
from tests.grading.factories import new_quiz
from tests.lms.lti_world import Lti
from tests.lms.platform import (
    CLIENT_ID,
    DEPLOYMENT_ID,
    ISSUER,
    LEARNER,
    login_url,
    path_and_query,
    signed_launch,
)

OTHER_CLIENT, OTHER_DEPLOYMENT = "vivabank-tool-school-b", "deployment-b"


def _school_b(lti: Lti) -> Quiz:
    registration = LtiRegistration.objects.create(
        name="School B",
        issuer=ISSUER,
        client_id=OTHER_CLIENT,
        auth_url="https://lms.uni.example/mod/lti/auth.php",
        token_url=f"{lti.base}/token",
        keyset_url=f"{lti.base}/jwks",
    )
    LtiDeployment.objects.create(
        registration=registration, deployment_id=OTHER_DEPLOYMENT, is_active=True
    )
    quiz = new_quiz(title="School B's exam")
    LtiCourseGrant.objects.create(registration=registration, course=quiz.course)
    return quiz


def _launch(lti: Lti, quiz: Quiz, **settings: Any) -> int:
    conf = lti.conf(**settings)
    login = lti.browser.get(path_and_query(login_url(conf, "student-5")))
    if login.status_code != 302:
        return int(login.status_code)
    data = signed_launch(
        conf,
        login["Location"],
        user_id="student-5",
        roles=[LEARNER],
        custom={"quiz_id": str(quiz.pk)},
    )
    reply = lti.browser.post("/lti/launch/", {"id_token": data["id_token"], "state": data["state"]})
    return int(reply.status_code)


def test_school_a_cannot_open_school_bs_quiz_with_school_bs_deployment(lti: Lti) -> None:
    quiz_b = _school_b(lti)
    assert _launch(lti, quiz_b, client_id=CLIENT_ID, deployment_id=OTHER_DEPLOYMENT) == 403
    assert not ExternalIdentity.objects.exists()


def test_school_b_cannot_open_school_as_quiz_with_school_as_deployment(lti: Lti) -> None:
    _school_b(lti)
    assert _launch(lti, lti.quiz, client_id=OTHER_CLIENT, deployment_id=DEPLOYMENT_ID) == 403
    assert not ExternalIdentity.objects.exists()


def test_each_school_opens_its_own_quiz(lti: Lti) -> None:
    quiz_b = _school_b(lti)
    assert _launch(lti, quiz_b, client_id=OTHER_CLIENT, deployment_id=OTHER_DEPLOYMENT) == 302
    assert _launch(lti, lti.quiz, client_id=CLIENT_ID, deployment_id=DEPLOYMENT_ID) == 302

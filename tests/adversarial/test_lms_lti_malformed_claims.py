"""A platform that signs malformed claims: custom parameters, the AGS, NRPS or deep
linking claims as strings, lists or numbers instead of objects. Each launch is refused
or goes on without the broken claim, never a 500."""

from typing import Any

import pytest

from tests.lms.lti_world import Lti
from tests.lms.platform import LEARNER, login_url, path_and_query, signed_launch

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
MALFORMED = [
    {CLAIM + "custom": ["quiz_id", "1"]},
    {CLAIM + "custom": "quiz_id=1"},
    {"https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": 5},
    {"https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {"lineitem": 7, "scope": 3}},
    {"https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": "http://x/"},
    {
        "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
            "context_memberships_url": 9
        }
    },
    {"https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings": ["x"]},
    {"email": {"a": 1}, "name": ["x"]},
]


@pytest.mark.parametrize("claims", MALFORMED)
def test_a_launch_with_malformed_claims_is_no_500(lti: Lti, claims: dict[str, Any]) -> None:
    login = lti.browser.get(path_and_query(login_url(lti.conf(), "student-4")))
    custom = {"quiz_id": str(lti.quiz.pk)}
    data = signed_launch(
        lti.conf(),
        login["Location"],
        user_id="student-4",
        roles=[LEARNER],
        custom=custom,
        extra_claims=claims,
    )
    reply = lti.browser.post("/lti/launch/", {"id_token": data["id_token"], "state": data["state"]})
    assert reply.status_code in (302, 403), reply.content[:500]

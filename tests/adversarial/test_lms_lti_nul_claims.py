"""NUL bytes in a launch's claims (PostgreSQL stores no NUL in text): in the user id,
name, e-mail, NRPS or AGS URL; the launch is refused or goes on without them, never a
500."""

from typing import Any

import pytest

from tests.lms.lti_world import Lti
from tests.lms.platform import LEARNER, login_url, path_and_query, signed_launch

CASES: list[tuple[str, dict[str, Any]]] = [
    ("nul\x00sub", {}),
    ("student-6", {"email": "a\x00@uni.example", "name": "Ada\x00", "given_name": "A\x00"}),
    (
        "student-6",
        {
            "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
                "context_memberships_url": "https://lms.uni.example/m\x00"
            }
        },
    ),
]


@pytest.mark.parametrize(("sub", "claims"), CASES)
def test_a_launch_with_nul_bytes_is_no_500(lti: Lti, sub: str, claims: dict[str, Any]) -> None:
    login = lti.browser.get(path_and_query(login_url(lti.conf(), sub)))
    data = signed_launch(
        lti.conf(),
        login["Location"],
        user_id=sub,
        roles=[LEARNER],
        custom={"quiz_id": str(lti.quiz.pk)},
        extra_claims=claims,
    )
    reply = lti.browser.post("/lti/launch/", {"id_token": data["id_token"], "state": data["state"]})
    assert reply.status_code in (302, 403), reply.content[:300]

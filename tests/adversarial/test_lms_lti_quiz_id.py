"""Odd quiz ids from a platform (the launch's custom `quiz_id`) or from the instructor's
deep linking pick: Unicode digits that str.isdigit() accepts but int() does not, and ids
past the database's range, are refused clearly (403 page), never a 500."""

import pytest
from django.contrib.auth.models import User

from lms.models import ExternalIdentity
from tests.lms.lti_world import Lti
from tests.lms.platform import (
    LEARNER,
    login_url,
    path_and_query,
    signed_launch,
)

ODD_IDS = ["²", "١٢٣", "99999999999999999999999", "-1", ""]


def _launch_naming(lti: Lti, quiz_id: str) -> int:
    login = lti.browser.get(path_and_query(login_url(lti.conf(), "student-3")))
    data = signed_launch(
        lti.conf(),
        login["Location"],
        user_id="student-3",
        roles=[LEARNER],
        custom={"quiz_id": quiz_id},
    )
    body = {"id_token": data["id_token"], "state": data["state"]}
    reply = lti.browser.post("/lti/launch/", body)
    return int(reply.status_code)


@pytest.mark.parametrize("quiz_id", ODD_IDS)
def test_a_launch_naming_an_odd_quiz_id_is_refused(lti: Lti, quiz_id: str) -> None:
    assert _launch_naming(lti, quiz_id) == 403
    assert not ExternalIdentity.objects.exists()


@pytest.mark.parametrize("picked", ["²", "99999999999999999999999"])
def test_a_deep_link_pick_of_an_odd_quiz_id_is_refused(lti: Lti, picked: str) -> None:
    lti.browser.force_login(User.objects.create(username="instructor"))
    session = lti.browser.session
    session["lms_deep_link"] = {"registration_id": 1, "deployment_id": "d", "settings": {}}
    session.save()
    reply = lti.browser.post("/lti/deep-link/", {"quiz": picked})
    assert reply.status_code == 403

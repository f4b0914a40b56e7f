"""A hostile or broken platform: a `sub` longer than any external id (LTI caps it at 255
characters) in a launch or in the NRPS roster, roster entries that are no member
objects at all or hold a NUL, are refused or skipped, never a 500; the well-formed
members still sync."""

from typing import Any

from rest_framework.test import APIClient

from lms.models import ExternalIdentity
from quizbank.models import CourseMembership
from tests.grading.factories import member
from tests.lms.lti_world import Lti, launch
from tests.lms.platform import LEARNER

TOO_LONG = "u" * 256


def test_a_launch_with_an_over_long_sub_is_refused(lti: Lti) -> None:
    reply, _ = launch(lti, user_id=TOO_LONG)
    assert reply.status_code == 403
    assert not ExternalIdentity.objects.exists()


def test_a_roster_of_junk_members_syncs_only_the_well_formed_ones(lti: Lti) -> None:
    launch(lti, memberships_url=f"{lti.base}/memberships/course-dl-101")
    junk: list[Any] = [
        42,
        "s-9",
        ["s-8"],
        {"user_id": TOO_LONG, "roles": [LEARNER]},
        {"user_id": "s-\x00", "roles": [LEARNER], "name": "N\x00"},
        {"user_id": "s-2", "roles": [LEARNER], "email": 5},
    ]
    lti.grades.members = junk
    api = APIClient()
    api.force_authenticate(member(lti.quiz.course, "examiner"))

    reply = api.post(f"/api/courses/{lti.quiz.course_id}/lti-roster-sync/")

    assert reply.status_code == 200, reply.content
    assert not ExternalIdentity.objects.filter(external_id=TOO_LONG).exists()
    synced = CourseMembership.objects.filter(user__external_identities__external_id="s-2")
    assert list(synced.values_list("role", flat=True)) == ["student"]

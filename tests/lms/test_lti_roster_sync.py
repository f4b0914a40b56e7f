"""Roster sync (NRPS): an examiner brings the course's members over from the platform,
whose membership service answers over HTTP with a token it issued."""

from typing import Any
from urllib.parse import urlparse

import pytest
from django.contrib.auth.models import User
from lti_tool.models import Key
from rest_framework.test import APIClient

from lms.models import LtiRosterSource
from quizbank.models import CourseMembership
from tests.grading.factories import member
from tests.lms.internal import internal_service
from tests.lms.lti_world import Lti, launch
from tests.lms.platform import INSTRUCTOR, LEARNER

TA = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"


def _roles(lti: Lti, sub: str) -> list[str]:
    rows = CourseMembership.objects.filter(
        course=lti.quiz.course, user__external_identities__external_id=sub
    )
    return sorted(rows.values_list("role", flat=True))


def _examiner(lti: Lti) -> APIClient:
    api = APIClient()
    api.force_authenticate(member(lti.quiz.course, "examiner"))
    return api


def test_an_examiner_syncs_the_roster_from_the_lms(lti: Lti) -> None:
    launch(lti, memberships_url=f"{lti.base}/memberships/course-dl-101")
    assert LtiRosterSource.objects.get().course == lti.quiz.course
    lti.grades.members = [
        {"user_id": "moodle-user-7", "roles": [LEARNER], "status": "Active", "name": "Ada King"},
        {"user_id": "s-2", "roles": [LEARNER], "name": "Grace Hopper", "email": "g@uni.example"},
        {"user_id": "t-1", "roles": [INSTRUCTOR, TA], "status": "Active"},
        {"user_id": "gone", "roles": ["Learner"], "status": "Inactive"},
    ]
    reply = _examiner(lti).post(f"/api/courses/{lti.quiz.course_id}/lti-roster-sync/")
    assert reply.status_code == 200, reply.content
    assert reply.json() == [{"members": 4, "added": 2, "removed": 0}]
    assert _roles(lti, "s-2") == ["student"]
    assert _roles(lti, "t-1") == ["examiner"]
    assert _roles(lti, "gone") == []
    assert User.objects.get(external_identities__external_id="s-2").email == "g@uni.example"
    # A member already known gets the name the LMS lists now.
    assert (
        User.objects.get(external_identities__external_id="moodle-user-7").first_name == "Ada King"
    )


def test_a_member_the_lms_lists_as_inactive_loses_the_course(lti: Lti) -> None:
    launch(lti, memberships_url=f"{lti.base}/memberships/course-dl-101")
    assert _roles(lti, "moodle-user-7") == ["student"]
    lti.grades.members = [{"user_id": "moodle-user-7", "roles": [LEARNER], "status": "Inactive"}]
    reply = _examiner(lti).post(f"/api/courses/{lti.quiz.course_id}/lti-roster-sync/")
    assert reply.json() == [{"members": 1, "added": 0, "removed": 1}]
    assert _roles(lti, "moodle-user-7") == []


def test_a_platform_that_refuses_is_a_502_naming_it(lti: Lti) -> None:
    launch(lti, memberships_url=f"{lti.base}/nothing-here")
    reply = _examiner(lti).post(f"/api/courses/{lti.quiz.course_id}/lti-roster-sync/")
    assert reply.status_code == 502
    assert reply.json()["error"]["code"] == "roster_not_fetched"


def test_students_cannot_sync_the_roster(lti: Lti) -> None:
    api = APIClient()
    api.force_authenticate(member(lti.quiz.course, "student"))
    assert api.post(f"/api/courses/{lti.quiz.course_id}/lti-roster-sync/").status_code == 403


def test_a_sync_after_every_tool_key_was_deleted_is_a_502_saying_to_run_rotate_keys(
    lti: Lti,
) -> None:
    launch(lti, memberships_url=f"{lti.base}/memberships/course-dl-101")
    Key.objects.all().delete()
    reply = _examiner(lti).post(f"/api/courses/{lti.quiz.course_id}/lti-roster-sync/")
    assert reply.status_code == 502
    error = reply.json()["error"]
    assert error["code"] == "roster_not_fetched"
    assert "manage.py rotate_keys" in error["message"]


def test_a_roster_with_odd_names_and_duplicate_members_syncs_cleanly(lti: Lti) -> None:
    launch(lti, memberships_url=f"{lti.base}/memberships/course-dl-101")
    lti.grades.members = [
        {"user_id": "s-2", "roles": [LEARNER], "name": "Grace\u202e Hopper\r\n", "email": 5},
        {"user_id": "s-2", "roles": [LEARNER, INSTRUCTOR], "given_name": {"x": 1}},
        {"user_id": "s-3", "roles": "Learner", "name": "x" * 10_000},
    ]
    reply = _examiner(lti).post(f"/api/courses/{lti.quiz.course_id}/lti-roster-sync/")
    assert reply.json() == [{"members": 3, "added": 2, "removed": 0}]
    assert _roles(lti, "s-2") == ["examiner", "student"]
    assert _roles(lti, "s-3") == []
    grace = User.objects.get(external_identities__external_id="s-2")
    assert (grace.first_name, grace.email) == ("Grace Hopper", "")
    assert User.objects.get(external_identities__external_id="s-3").first_name == "x" * 150


@pytest.mark.parametrize(
    ("sent_by", "why"),
    [
        ("members_next", "resolves to an internal address"),  # the roster's next page
        ("redirect_to", "redirect"),  # a 307 from the roster
    ],
)
def test_a_roster_reaching_for_an_internal_host_is_not_fetched(
    lti: Lti, sent_by: str, why: str
) -> None:
    launch(lti, memberships_url=f"{lti.base}/memberships/course-dl-101")
    with internal_service() as (hits, internal):
        setattr(lti.grades, sent_by, f"{internal}/latest/meta-data")
        reply = _examiner(lti).post(f"/api/courses/{lti.quiz.course_id}/lti-roster-sync/")
    assert reply.status_code == 502
    assert why in reply.json()["error"]["message"]
    assert hits == []
    assert _roles(lti, "from-inside") == []


def test_a_roster_host_is_reached_at_the_address_that_was_checked(
    lti: Lti, fake_dns: dict[str, list[str]], settings: Any
) -> None:
    """An allowed platform host checked as 127.0.0.1 that a further lookup would send
    elsewhere (DNS rebinding): the roster still comes from the checked address."""
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["roster.lms.test"]
    port = urlparse(lti.base).port
    launch(lti, memberships_url=f"http://roster.lms.test:{port}/memberships/course-dl-101")
    fake_dns["roster.lms.test"] = ["127.0.0.1", "127.0.0.1", "192.0.2.1"]
    lti.grades.members = [{"user_id": "s-9", "roles": [LEARNER], "status": "Active"}]
    reply = _examiner(lti).post(f"/api/courses/{lti.quiz.course_id}/lti-roster-sync/")
    assert reply.status_code == 200, reply.content
    assert reply.json() == [{"members": 1, "added": 1, "removed": 0}]
    assert _roles(lti, "s-9") == ["student"]


@pytest.mark.parametrize(
    "answer", [{"id": "x"}, {"members": "everyone"}, ["a member"], "roster"], ids=str
)
def test_a_roster_answer_that_is_no_roster_is_a_502_naming_it(lti: Lti, answer: Any) -> None:
    launch(lti, memberships_url=f"{lti.base}/memberships/course-dl-101")
    lti.grades.roster_answer = answer
    reply = _examiner(lti).post(f"/api/courses/{lti.quiz.course_id}/lti-roster-sync/")
    assert reply.status_code == 502
    error = reply.json()["error"]
    assert error["code"] == "roster_not_fetched"
    assert "could not be read" in error["message"]


def test_a_roster_url_that_is_no_url_is_a_502_naming_it(lti: Lti) -> None:
    launch(lti, memberships_url="http://[::1/memberships")
    reply = _examiner(lti).post(f"/api/courses/{lti.quiz.course_id}/lti-roster-sync/")
    assert reply.status_code == 502
    error = reply.json()["error"]
    assert error["code"] == "roster_not_fetched"
    assert "not a URL" in error["message"]

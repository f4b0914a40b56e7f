"""LTI platform registrations over the API: site administrators only; deployments and
course grants replaced exactly; a launch then follows what was registered."""

from typing import Any

from django.contrib.auth.models import User
from lti_tool.models import LtiDeployment, LtiRegistration
from rest_framework.test import APIClient

from grading.models import Attempt
from tests.grading.factories import api_as, member, new_course
from tests.lms.conftest import MakeClient
from tests.lms.lti_world import Lti, launch

MOODLE = {
    "name": "Moodle",
    "issuer": "https://moodle.uni.example",
    "client_id": "abc",
    "auth_url": "https://moodle.uni.example/mod/lti/auth.php",
    "token_url": "https://moodle.uni.example/mod/lti/token.php",
    "keyset_url": "https://moodle.uni.example/mod/lti/certs.php",
}


def _admin() -> APIClient:
    return api_as(User.objects.create_superuser("root", "root@uni.example", "x-long-pass-1"))


def test_an_administrator_registers_a_platform_with_deployments_and_courses(db: None) -> None:
    course = new_course()
    api = _admin()
    made = api.post(
        "/api/lti/registrations/",
        {**MOODLE, "deployments": ["1", "2"], "courses": [course.pk]},
        format="json",
    )
    assert made.status_code == 201, made.content
    assert made.json()["deployments"] == ["1", "2"]
    assert made.json()["courses"] == [course.pk]
    url = f"/api/lti/registrations/{made.json()['id']}/"
    changed = api.patch(url, {"deployments": ["2"], "courses": []}, format="json").json()
    assert (changed["deployments"], changed["courses"]) == (["2"], [])
    old = LtiDeployment.objects.get(deployment_id="1")
    assert old.is_active is False
    assert [r["issuer"] for r in api.get("/api/lti/registrations/").json()] == [MOODLE["issuer"]]


def test_an_issuer_and_client_id_are_registered_once(db: None) -> None:
    api = _admin()
    body = {**MOODLE, "deployments": [], "courses": []}
    assert api.post("/api/lti/registrations/", body, format="json").status_code == 201
    again = api.post("/api/lti/registrations/", body, format="json")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "registration_taken"


def test_an_unknown_course_is_refused_by_field_and_nothing_is_saved(db: None) -> None:
    reply = _admin().post(
        "/api/lti/registrations/",
        {**MOODLE, "deployments": ["1"], "courses": [999999]},
        format="json",
    )
    assert reply.status_code == 400
    assert list(reply.json()["error"]["fields"]) == ["courses"]
    assert not LtiRegistration.objects.exists()


def test_only_site_administrators_register_platforms(make_client: MakeClient) -> None:
    author = member(new_course(), "author")
    assert api_as(author).get("/api/lti/registrations/").status_code == 403
    _, client = make_client()
    assert client.get("/api/lti/registrations/").status_code == 403


def test_a_deployment_removed_over_the_api_is_refused_at_launch(lti: Lti) -> None:
    registration = LtiRegistration.objects.get()
    api = _admin()
    reply = api.patch(
        f"/api/lti/registrations/{registration.pk}/", {"deployments": ["another"]}, format="json"
    )
    assert reply.status_code == 200, reply.content
    refused, _ = launch(lti)
    assert refused.status_code == 403
    assert "Unable to find deployment" in refused.content.decode()


def test_grants_bound_to_an_lms_course_over_the_api_decide_which_launches_open_it(
    lti: Lti,
) -> None:
    registration = LtiRegistration.objects.get()
    url = f"/api/lti/registrations/{registration.pk}/"
    api = _admin()
    course = lti.quiz.course_id
    elsewhere = {"grants": [{"course": course, "context_id": "another-lms-course"}]}
    reply = api.patch(url, elsewhere, format="json")
    assert reply.status_code == 200, reply.content
    assert reply.json()["grants"] == elsewhere["grants"]
    assert launch(lti)[0].status_code == 403, "launched from a course the grant is not bound to"
    assert not Attempt.objects.exists()

    here = {"grants": [{"course": course, "context_id": "course-dl-101"}]}
    assert api.patch(url, here, format="json").json()["grants"] == here["grants"]
    assert launch(lti)[0].status_code == 302
    # `courses` alone keeps each grant's binding.
    kept = api.patch(url, {"courses": [course]}, format="json").json()
    assert kept["grants"] == here["grants"]


def test_grants_and_courses_together_or_twice_or_unknown_are_refused(db: None) -> None:
    course = new_course()
    api = _admin()
    cases: dict[str, dict[str, Any]] = {
        "grants": {"courses": [course.pk], "grants": [{"course": course.pk}]},
        "grants[1].course": {"grants": [{"course": course.pk}, {"course": 0}]},
    }
    for field, extra in cases.items():
        reply = api.post(
            "/api/lti/registrations/", {**MOODLE, "deployments": [], **extra}, format="json"
        )
        assert reply.status_code == 400, (field, reply.content)
        assert list(reply.json()["error"]["fields"]) == [field]
    twice = {"grants": [{"course": course.pk}, {"course": course.pk, "context_id": "x"}]}
    reply = api.post(
        "/api/lti/registrations/", {**MOODLE, "deployments": [], **twice}, format="json"
    )
    assert reply.json()["error"]["fields"] == {"grants": ["Each course may be granted once."]}
    unknown = {"grants": [{"course": 999999, "context_id": "x"}]}
    reply = api.post(
        "/api/lti/registrations/", {**MOODLE, "deployments": [], **unknown}, format="json"
    )
    assert list(reply.json()["error"]["fields"]) == ["grants"]
    assert not LtiRegistration.objects.exists()

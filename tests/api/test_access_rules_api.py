"""Access rules over the API: authors set them, each student sees and meets their own."""

from datetime import UTC, datetime, timedelta
from typing import Any

import time_machine
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from quizbank.models import Role
from tests.api.conftest import World
from tests.api.helpers import save
from tests.grading.factories import member, new_course

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _api(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _override(world: World, student_id: int, **body: object) -> Any:
    url = f"/api/quizzes/{world.quiz.pk}/access/overrides/{student_id}/"
    return _api(world.author).put(url, body, format="json")


def test_a_student_with_extra_time_gets_a_longer_deadline_and_sees_why(world: World) -> None:
    world.quiz.time_limit = timedelta(minutes=40)
    world.quiz.save()
    assert _override(world, world.student.pk, extra_time_percent=50).status_code == 200
    student = _api(world.student)
    terms = student.get(f"/api/quizzes/{world.quiz.pk}/my-terms/").json()
    assert terms["time_limit"] == "01:00:00"
    assert terms["extra_time_percent"] == 50
    with time_machine.travel(T0, tick=False):
        attempt = student.post(f"/api/quizzes/{world.quiz.pk}/attempts/").json()
    assert attempt["deadline"] == "2026-03-02T10:00:00Z"


def test_another_students_override_does_not_apply(world: World) -> None:
    world.quiz.time_limit = timedelta(minutes=40)
    world.quiz.save()
    other = member(world.course, Role.STUDENT)
    _override(world, other.pk, extra_time_percent=100)
    with time_machine.travel(T0, tick=False):
        attempt = _api(world.student).post(f"/api/quizzes/{world.quiz.pk}/attempts/").json()
    assert attempt["deadline"] == "2026-03-02T09:40:00Z"


def test_only_authors_of_the_course_set_overrides(world: World) -> None:
    url = f"/api/quizzes/{world.quiz.pk}/access/overrides/{world.student.pk}/"
    body = {"extra_time_percent": 50}
    assert _api(world.student).put(url, body, format="json").status_code == 403
    assert _api(world.examiner).put(url, body, format="json").status_code == 403
    stranger = member(new_course(), Role.AUTHOR)
    assert _api(stranger).put(url, body, format="json").status_code == 404
    assert APIClient().put(url, body, format="json").status_code == 401


def test_an_override_for_a_non_student_is_a_404_and_out_of_range_a_400(world: World) -> None:
    assert _override(world, world.examiner.pk, extra_attempts=1).status_code == 404
    assert _override(world, world.student.pk, extra_time_percent=9999).status_code == 400
    assert _override(world, 999999, extra_attempts=1).status_code == 404


def test_a_wrong_access_code_is_a_403_and_the_right_one_starts(world: World) -> None:
    rules = {"access_code": "OWL-42", "allowed_networks": []}
    url = f"/api/quizzes/{world.quiz.pk}/access/"
    assert _api(world.author).put(url, rules, format="json").status_code == 200
    student = _api(world.student)
    start = f"/api/quizzes/{world.quiz.pk}/attempts/"
    wrong = student.post(start, {"access_code": "owl"}, format="json")
    assert wrong.status_code == 403
    assert wrong.json()["error"]["code"] == "access_code_wrong"
    assert student.post(start).status_code == 403
    assert student.post(start, {"access_code": "OWL-42"}, format="json").status_code == 201
    assert student.get(f"/api/quizzes/{world.quiz.pk}/my-terms/").json()["needs_access_code"]
    assert "OWL-42" not in student.get(f"/api/quizzes/{world.quiz.pk}/").content.decode()


def test_an_address_outside_the_networks_is_refused(world: World) -> None:
    rules = {"access_code": "", "allowed_networks": ["10.2.0.0/16"]}
    _api(world.author).put(f"/api/quizzes/{world.quiz.pk}/access/", rules, format="json")
    student = _api(world.student)
    start = f"/api/quizzes/{world.quiz.pk}/attempts/"
    outside = student.post(start, REMOTE_ADDR="192.168.0.7")
    assert outside.status_code == 403
    assert outside.json()["error"]["code"] == "network_not_allowed"
    inside = student.post(start, REMOTE_ADDR="10.2.3.4")
    assert inside.status_code == 201
    attempt = inside.json()["id"]
    assert save(student, attempt, 0, {"choice": 0}).status_code == 403  # 127.0.0.1


def test_bad_networks_are_a_400_naming_the_entry(world: World) -> None:
    rules = {"access_code": "", "allowed_networks": ["10.2.0.0/16", "the lab"]}
    reply = _api(world.author).put(f"/api/quizzes/{world.quiz.pk}/access/", rules, format="json")
    assert reply.status_code == 400
    assert "allowed_networks[1]" in reply.json()["error"]["fields"]


def test_students_cannot_read_the_access_rules(world: World) -> None:
    assert _api(world.student).get(f"/api/quizzes/{world.quiz.pk}/access/").status_code == 403


def test_authors_enrol_students_and_others_cannot(world: World) -> None:
    newcomer = User.objects.create(username="newcomer", email="new@example.org")
    url = f"/api/courses/{world.course.pk}/students/"
    body = {"entries": ["new@example.org", "nobody"]}
    assert _api(world.student).post(url, body, format="json").status_code == 403
    assert _api(world.examiner).post(url, body, format="json").status_code == 403
    assert _api(member(new_course(), Role.AUTHOR)).post(url, body, format="json").status_code == 404
    reply = _api(world.author).post(url, body, format="json")
    assert reply.json() == {
        "added": ["newcomer"],
        "already": [],
        "unknown": ["nobody"],
        "ambiguous": [],
        "staff": [],
    }
    assert newcomer.course_memberships.filter(role=Role.STUDENT).exists()

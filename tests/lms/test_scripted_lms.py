"""An LMS, through the API alone and over real HTTP: it creates a course, users and
enrolments, schedules a quiz from bank questions and a pool, two students take it with
their own sign-ins, and the LMS pulls grades by updated_since."""

from datetime import UTC, datetime, timedelta

import pytest
from pytest_django.live_server_helper import LiveServer

from lms.services.tokens import api_client_create, token_issue
from quizbank.models import Course
from tests.grading.content import NUMERIC, TRUE_FALSE
from tests.grading.factories import new_topic, question
from tests.lms.conftest import ALL_SCOPES
from tests.lms.scripted_lms import HttpApi, sign_in

PASSWORD = "a-long-student-password-1"
TRUE_FALSE_TAGGED = {**TRUE_FALSE, "tags": ["warm-up"]}


def _bank_questions(course_id: int) -> None:
    """What the course's authors put in its bank (bank import or the admin): not the LMS."""
    course = Course.objects.get(pk=course_id)
    topic = new_topic(course=course, slug="autograd")
    question(course, NUMERIC, topic=topic)
    for _ in range(2):
        question(course, TRUE_FALSE_TAGGED, topic=topic)


def _take_quiz(student: HttpApi, quiz_id: int, numeric: int) -> None:
    attempt = student.ok("POST", f"/api/quizzes/{quiz_id}/attempts/")
    for position, answer in ((0, {"value": numeric}), (1, {"value": True})):
        body = {"version": 0, "answer": answer}
        student.ok("PUT", f"/api/attempts/{attempt['id']}/responses/{position}/", body)
    assert student.ok("POST", f"/api/attempts/{attempt['id']}/submit/")["status"] == "graded"


@pytest.mark.django_db(transaction=True)
def test_an_lms_provisions_schedules_and_pulls_grades(live_server: LiveServer) -> None:
    client = api_client_create(name="moodle.uni.example")
    _, key = token_issue(client=client, scopes=ALL_SCOPES)
    lms = HttpApi(live_server.url, f"Bearer {key}")

    course = lms.ok("POST", "/api/courses/", {"slug": "dl-101", "title": "Deep learning"})
    for n in (1, 2):
        lms.ok(
            "POST",
            "/api/users/",
            {"external_id": f"stu-{n}", "username": f"stu{n}", "password": PASSWORD},
        )
    lms.ok("POST", "/api/users/", {"external_id": "ta-1"})
    roster = [
        {"external_id": "stu-1", "roles": ["student"]},
        {"external_id": "stu-2", "roles": ["student"]},
        {"external_id": "ta-1", "roles": ["examiner"]},
    ]
    assert lms.ok("POST", f"/api/courses/{course['id']}/memberships/", {"memberships": roster}) == {
        "added": 3,
        "removed": 0,
    }

    _bank_questions(course["id"])
    found = lms.ok("GET", f"/api/questions/?course={course['id']}&type=numeric")
    numeric = found["results"][0]["id"]
    now = datetime.now(UTC)
    quiz = lms.ok(
        "POST",
        "/api/quizzes/",
        {
            "course": course["id"],
            "slug": "week-1",
            "title": "Week 1",
            "opens_at": (now + timedelta(days=1)).isoformat(),
            "time_limit": "00:20:00",
            "slots": [{"question": numeric}, {"pool_tag": "warm-up", "draw_count": 1}],
        },
    )
    stu1, stu2 = (sign_in(live_server.url, f"stu{n}", PASSWORD) for n in (1, 2))
    status, refused = stu1.call("POST", f"/api/quizzes/{quiz['id']}/attempts/")
    assert status == 409, refused  # not open yet
    lms.ok("POST", f"/api/quizzes/{quiz['id']}/open/")

    _take_quiz(stu1, quiz["id"], numeric=11)
    first = {r["external_id"]: r for r in lms.ok("GET", f"/api/quizzes/{quiz['id']}/grades/")}
    assert first["stu-1"]["score"] == "2.000"
    assert first["stu-1"]["status"] == "fully_graded"
    assert first["stu-2"]["status"] == "not_attempted"

    since = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    _take_quiz(stu2, quiz["id"], numeric=6)
    changed = lms.ok("GET", f"/api/quizzes/{quiz['id']}/grades/?updated_since={since}")
    assert [(r["external_id"], r["score"], r["released"]) for r in changed] == [
        ("stu-2", "1.000", True)
    ]

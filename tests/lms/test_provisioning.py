"""Users, memberships, courses and quizzes provisioned over the API by an API client."""

from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone

from quizbank.models import Course, CourseMembership, Quiz
from tests.grading.content import SINGLE, TRUE_FALSE
from tests.grading.factories import api_as, member, new_course, new_topic, question
from tests.grading.factories import new_quiz as make_quiz
from tests.lms.conftest import MakeClient


def test_it_creates_updates_and_deactivates_a_user_by_external_id(
    make_client: MakeClient,
) -> None:
    _, api = make_client()
    made = api.post("/api/users/", {"external_id": "s-1", "email": "a@uni.example"})
    assert made.status_code == 201, made.content
    assert made.json()["external_id"] == "s-1"
    changed = api.patch("/api/users/s-1/", {"first_name": "Ada"}, format="json")
    assert changed.json()["first_name"] == "Ada"
    assert api.delete("/api/users/s-1/").json()["is_active"] is False
    assert User.objects.get(pk=made.json()["id"]).is_active is False


def test_an_external_id_is_unique_per_client_not_across_clients(make_client: MakeClient) -> None:
    _, moodle = make_client("moodle")
    _, canvas = make_client("canvas")
    assert moodle.post("/api/users/", {"external_id": "42"}).status_code == 201
    again = moodle.post("/api/users/", {"external_id": "42"})
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "external_id_taken"
    assert canvas.post("/api/users/", {"external_id": "42"}).status_code == 201
    assert User.objects.filter(external_identities__external_id="42").count() == 2


def test_a_client_sees_none_of_another_clients_users(make_client: MakeClient) -> None:
    _, moodle = make_client("moodle")
    _, canvas = make_client("canvas")
    moodle.post("/api/users/", {"external_id": "s-9"})
    assert canvas.get("/api/users/s-9/").status_code == 404
    assert canvas.get("/api/users/").json()["count"] == 0


def test_a_weak_password_is_refused_by_field(make_client: MakeClient) -> None:
    _, api = make_client()
    reply = api.post("/api/users/", {"external_id": "s-1", "password": "123"})
    assert reply.status_code == 400
    assert "password" in reply.json()["error"]["fields"]
    assert not User.objects.filter(external_identities__external_id="s-1").exists()


def test_a_course_created_by_a_client_is_one_it_authors(make_client: MakeClient) -> None:
    client, api = make_client()
    reply = api.post("/api/courses/", {"slug": "dl-101", "title": "Deep learning"})
    assert reply.status_code == 201, reply.content
    roles = CourseMembership.objects.filter(user=client.user, course_id=reply.json()["id"])
    assert sorted(roles.values_list("role", flat=True)) == ["author", "examiner"]
    taken = api.post("/api/courses/", {"slug": "dl-101", "title": "Again"})
    assert taken.status_code == 409


def test_a_person_without_the_permission_cannot_create_a_course(db: None) -> None:
    author = member(new_course(), "author")
    reply = api_as(author).post("/api/courses/", {"slug": "x", "title": "X"}, format="json")
    assert reply.status_code == 403


def test_memberships_are_set_exactly_and_all_or_nothing(make_client: MakeClient) -> None:
    _, api = make_client()
    course = api.post("/api/courses/", {"slug": "c1", "title": "C1"}).json()["id"]
    for n in (1, 2):
        api.post("/api/users/", {"external_id": f"u{n}"})
    url = f"/api/courses/{course}/memberships/"
    body = {
        "memberships": [
            {"external_id": "u1", "roles": ["student"]},
            {"external_id": "u2", "roles": ["examiner", "student"]},
        ]
    }
    assert api.post(url, body, format="json").json() == {"added": 3, "removed": 0}
    body = {"memberships": [{"external_id": "u2", "roles": ["examiner"]}]}
    assert api.post(url, body, format="json").json() == {"added": 0, "removed": 1}
    bad = {
        "memberships": [
            {"external_id": "u1", "roles": []},
            {"external_id": "nobody", "roles": ["student"]},
        ]
    }
    reply = api.post(url, bad, format="json")
    assert reply.status_code == 400
    assert list(reply.json()["error"]["fields"]) == ["memberships[1].external_id"]
    listed = {(m["external_id"], m["role"]) for m in api.get(url).json()}
    assert listed == {("u1", "student"), ("u2", "examiner")}
    twice = {
        "memberships": [
            {"external_id": "u1", "roles": ["examiner"]},
            {"external_id": "u1", "roles": []},
        ]
    }
    reply = api.post(url, twice, format="json")
    assert reply.status_code == 400
    assert "items 0 and 1 both list external_id 'u1'" in str(reply.json()["error"]["fields"])
    assert {(m["external_id"], m["role"]) for m in api.get(url).json()} == listed


def test_a_client_cannot_change_a_course_it_does_not_belong_to(make_client: MakeClient) -> None:
    _, api = make_client()
    other = new_course()
    reply = api.post(f"/api/courses/{other.pk}/memberships/", {"memberships": []}, format="json")
    assert reply.status_code == 404


def test_a_quiz_is_made_from_bank_questions_and_pools(make_client: MakeClient) -> None:
    _, api = make_client()
    course_id = api.post("/api/courses/", {"slug": "c2", "title": "C2"}).json()["id"]
    course = Course.objects.get(pk=course_id)
    topic = new_topic(course=course, slug="tensors")
    fixed = question(course, SINGLE, topic=topic)
    question(course, TRUE_FALSE, topic=topic)
    question(course, {**TRUE_FALSE, "title": "Another"}, topic=topic)  # the pool draws 2 beside it
    opens = timezone.now() + timedelta(days=1)
    body = {
        "course": course_id,
        "slug": "w1",
        "title": "Week 1",
        "time_limit": "00:30:00",
        "opens_at": opens.isoformat(),
        "closes_at": (opens + timedelta(days=7)).isoformat(),
        "slots": [{"question": fixed.pk}, {"pool_topic": "tensors", "draw_count": 2}],
    }
    reply = api.post("/api/quizzes/", body, format="json")
    assert reply.status_code == 201, reply.content
    quiz = Quiz.objects.get(pk=reply.json()["id"])
    assert [(s.question_id, s.draw_count) for s in quiz.slots.order_by("position")] == [
        (fixed.pk, 1),
        (None, 2),
    ]
    assert quiz.time_limit == timedelta(minutes=30)


def test_a_quiz_naming_another_courses_question_is_refused_by_field(
    make_client: MakeClient,
) -> None:
    _, api = make_client()
    course_id = api.post("/api/courses/", {"slug": "c3", "title": "C3"}).json()["id"]
    foreign = question(new_course(), SINGLE)
    body = {
        "course": course_id,
        "slug": "w1",
        "title": "W",
        "slots": [{"pool_tag": "nothing-here"}, {"question": foreign.pk}],
    }
    reply = api.post("/api/quizzes/", body, format="json")
    assert reply.status_code == 400
    assert list(reply.json()["error"]["fields"]) == ["slots[0].draw_count"]
    body["slots"] = [{"question": foreign.pk}]
    reply = api.post("/api/quizzes/", body, format="json")
    assert list(reply.json()["error"]["fields"]) == ["slots[0].question"]
    assert not Quiz.objects.filter(course_id=course_id).exists()


def test_a_question_twice_or_positions_out_of_list_order_are_refused_by_field(
    make_client: MakeClient,
) -> None:
    _, api = make_client()
    course_id = api.post("/api/courses/", {"slug": "c4", "title": "C4"}).json()["id"]
    course = Course.objects.get(pk=course_id)
    first, second = question(course, SINGLE), question(course, TRUE_FALSE)
    body = {"course": course_id, "slug": "w1", "title": "W"}
    twice = [{"question": first.pk}, {"question": second.pk}, {"question": first.pk, "points": 5}]
    reply = api.post("/api/quizzes/", {**body, "slots": twice}, format="json")
    assert reply.status_code == 400
    assert reply.json()["error"]["fields"] == {
        "slots[2].question": [f"Question {first.pk} is already in slot 0."]
    }
    swapped = [{"question": second.pk, "position": 1}, {"question": first.pk, "position": 0}]
    reply = api.post("/api/quizzes/", {**body, "slots": swapped}, format="json")
    assert reply.status_code == 400
    assert list(reply.json()["error"]["fields"]) == ["slots[0].position"]
    assert not Quiz.objects.filter(course_id=course_id).exists()
    as_read = [{"question": second.pk, "position": 0}, {"question": first.pk, "position": 1}]
    made = api.post("/api/quizzes/", {**body, "slots": as_read}, format="json")
    assert made.status_code == 201, made.content
    assert [s["question"] for s in made.json()["slots"]] == [second.pk, first.pk]


def test_a_quiz_must_close_after_it_opens(make_client: MakeClient) -> None:
    _, api = make_client()
    course_id = api.post("/api/courses/", {"slug": "c4", "title": "C4"}).json()["id"]
    now = timezone.now()
    body = {
        "course": course_id,
        "slug": "w",
        "title": "W",
        "opens_at": now.isoformat(),
        "closes_at": (now - timedelta(hours=1)).isoformat(),
    }
    reply = api.post("/api/quizzes/", body, format="json")
    assert reply.status_code == 400
    assert list(reply.json()["error"]["fields"]) == ["closes_at"]


def test_a_quiz_is_rescheduled_opened_and_closed(make_client: MakeClient) -> None:
    client, api = make_client()
    quiz = make_quiz(opens_at=timezone.now() + timedelta(days=3))
    member(quiz.course, "author", client.user)
    later = timezone.now() + timedelta(days=5)
    reply = api.patch(f"/api/quizzes/{quiz.pk}/", {"opens_at": later.isoformat()}, format="json")
    assert reply.status_code == 200, reply.content
    quiz.refresh_from_db()
    assert quiz.opens_at == later
    api.post(f"/api/quizzes/{quiz.pk}/open/")
    quiz.refresh_from_db()
    assert quiz.opens_at is not None
    assert quiz.opens_at <= timezone.now()
    api.post(f"/api/quizzes/{quiz.pk}/close/")
    quiz.refresh_from_db()
    assert quiz.closes_at is not None
    assert quiz.closes_at <= timezone.now()


def test_a_quiz_with_attempts_keeps_its_slots(make_client: MakeClient) -> None:
    client, api = make_client()
    quiz = make_quiz()
    member(quiz.course, "author", client.user)
    q = question(quiz.course, TRUE_FALSE)
    api.patch(f"/api/quizzes/{quiz.pk}/", {"slots": [{"question": q.pk}]}, format="json")
    student = member(quiz.course, "student")
    assert api_as(student).post(f"/api/quizzes/{quiz.pk}/attempts/").status_code == 201
    reply = api.patch(f"/api/quizzes/{quiz.pk}/", {"slots": []}, format="json")
    assert reply.status_code == 409
    assert reply.json()["error"]["code"] == "quiz_locked"
    assert quiz.slots.count() == 1


def test_students_and_examiners_cannot_write_quizzes(db: None) -> None:
    quiz = make_quiz()
    for role in ("student", "examiner"):
        api = api_as(member(quiz.course, role))
        assert (
            api.patch(f"/api/quizzes/{quiz.pk}/", {"title": "x"}, format="json").status_code == 403
        )
        assert api.post(f"/api/quizzes/{quiz.pk}/close/").status_code == 403


def test_a_deactivated_user_loses_every_role(make_client: MakeClient) -> None:
    _, api = make_client()
    quiz = make_quiz()
    made = api.post("/api/users/", {"external_id": "gone"}).json()
    user = User.objects.get(pk=made["id"])
    member(quiz.course, "student", user)
    assert api_as(user).get(f"/api/quizzes/{quiz.pk}/").status_code == 200
    api.delete("/api/users/gone/")
    user.refresh_from_db()
    assert api_as(user).get(f"/api/quizzes/{quiz.pk}/").status_code == 404


def test_a_username_differing_only_in_case_from_a_taken_one_is_refused_by_field(
    make_client: MakeClient,
) -> None:
    _, api = make_client()
    assert api.post("/api/users/", {"external_id": "s-1", "username": "Alice"}).status_code == 201
    again = api.post("/api/users/", {"external_id": "s-2", "username": "alice"})
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "username_taken"
    assert "ignoring case" in again.json()["error"]["fields"]["username"][0]
    assert not User.objects.filter(username="alice").exists()
    api.post("/api/users/", {"external_id": "s-3", "username": "bob"})
    renamed = api.patch("/api/users/s-3/", {"username": "ALICE"}, format="json")
    assert renamed.status_code == 409
    assert "username" in renamed.json()["error"]["fields"]
    recased = api.patch("/api/users/s-1/", {"username": "ALICE"}, format="json")
    assert recased.status_code == 200, recased.content
    assert recased.json()["username"] == "ALICE"


def test_a_username_made_from_an_external_id_avoids_one_differing_only_in_case(
    make_client: MakeClient,
) -> None:
    _, api = make_client("moodle")
    first = api.post("/api/users/", {"external_id": "s-1"}).json()["username"]
    wanted = first.removesuffix("-s-1") + "-s-2"
    User.objects.create(username=wanted.upper())
    made = api.post("/api/users/", {"external_id": "s-2"})
    assert made.status_code == 201, made.content
    assert made.json()["username"].startswith(wanted + "-")

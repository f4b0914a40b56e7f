"""Every list validates its filters and ordering: a bad value is a 400 naming it."""

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import World

BIG = "99999999999999999999999"
# list -> a filter of it with a value it cannot use
BAD_FILTERS = [
    ("/api/courses/", "slug", "a\x00b"),
    ("/api/questions/", "course", BIG),
    ("/api/questions/", "type", "essay"),
    ("/api/questions/", "difficulty", "impossible"),
    ("/api/quizzes/", "course", "-1"),
    ("/api/quizzes/", "release_policy", "zzz"),
    ("/api/attempts/", "quiz", BIG),
    ("/api/attempts/", "user", "me"),
    ("/api/attempts/", "status", "zzz"),
    ("/api/marking/queue/", "quiz", BIG),
    ("/api/marking/queue/", "status", "zzz"),
    ("/api/marking/queue/", "needs_second_mark", "maybe"),
    ("/api/marking/queue/", "flagged", "2"),
    ("/api/regrade-runs/", "quiz", "1.5"),
    ("/api/regrade-runs/", "status", "zzz"),
    ("/api/regrade-requests/", "status", "zzz"),
    ("/api/regrade-requests/", "response__attempt__quiz", BIG),
    ("/api/viva-sessions/", "student", BIG),
    ("/api/viva-sessions/", "ended", "yes please"),
]


@pytest.fixture
def examiner_api(world: World) -> APIClient:
    client = APIClient()
    client.force_authenticate(world.examiner)
    return client


@pytest.mark.parametrize(("url", "name", "value"), BAD_FILTERS)
def test_a_filter_value_the_list_cannot_use_is_a_400_naming_the_filter(
    examiner_api: APIClient, url: str, name: str, value: str
) -> None:
    reply = examiner_api.get(url, {name: value})
    assert reply.status_code == 400, reply.content
    assert list(reply.json()["error"]["fields"]) == [name]


@pytest.mark.parametrize("url", ["/api/attempts/", "/api/marking/queue/", "/api/quizzes/"])
def test_an_ordering_the_list_does_not_offer_is_a_400(examiner_api: APIClient, url: str) -> None:
    reply = examiner_api.get(url, {"ordering": "password"})
    assert reply.status_code == 400
    assert list(reply.json()["error"]["fields"]) == ["ordering"]


def test_the_marking_queue_filters_by_quiz_and_status(
    world: World, examiner_api: APIClient
) -> None:
    for params in ({"quiz": world.quiz.pk}, {"status": "unmarked"}, {"flagged": "false"}):
        assert examiner_api.get("/api/marking/queue/", params).status_code == 200


def test_an_id_filter_never_tells_whether_the_object_exists(
    world: World, student_api: APIClient
) -> None:
    for user in (world.examiner.pk, 987654321):
        reply = student_api.get("/api/attempts/", {"user": user})
        assert reply.status_code == 200
        assert reply.json()["results"] == []


@pytest.mark.parametrize("attempt", [BIG, str(2**63), "-1"])
def test_an_id_out_of_range_in_the_path_is_a_json_404(student_api: APIClient, attempt: str) -> None:
    reply = student_api.get(f"/api/attempts/{attempt}/")
    assert reply.status_code == 404
    assert reply.json()["error"]["code"] == "not_found"

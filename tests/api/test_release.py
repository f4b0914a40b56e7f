"""Release policies: scores and feedback reach the student only when allowed."""

from datetime import UTC, datetime, timedelta

import time_machine
from rest_framework.test import APIClient

from grading.models import Response
from quizbank.models import ReleasePolicy
from tests.api.conftest import World
from tests.api.helpers import save, start, submit

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _take(client: APIClient, quiz_id: int) -> int:
    attempt = start(client, quiz_id)
    save(client, attempt["id"], 0, {"choice": 0})
    save(client, attempt["id"], 5, {"text": "Each backward adds to .grad."})
    submit(client, attempt["id"])
    return int(attempt["id"])


def test_manual_release_hides_scores_until_an_examiner_releases(
    world: World, student_api: APIClient
) -> None:
    world.quiz.release_policy = ReleasePolicy.MANUAL
    world.quiz.save()
    attempt = _take(student_api, world.quiz.pk)
    hidden = student_api.get(f"/api/attempts/{attempt}/").json()
    assert hidden["results_visible"] is False
    assert hidden["score"] is None
    assert {r["score"] for r in hidden["responses"]} == {None}
    assert {r["feedback"] is None for r in hidden["responses"]} == {True}
    assert student_api.get(f"/api/quizzes/{world.quiz.pk}/grade/").json()["grade"] is None

    examiner = APIClient()
    examiner.force_authenticate(world.examiner)
    assert examiner.get(f"/api/attempts/{attempt}/").json()["score"] == "1.000"
    # The viva (position 5) has no mark yet, so the release waits for it.
    assert examiner.post(f"/api/quizzes/{world.quiz.pk}/release/").status_code == 409
    _mark_viva(examiner, attempt, levels=[0])
    assert examiner.post(f"/api/quizzes/{world.quiz.pk}/release/").status_code == 200

    shown = student_api.get(f"/api/attempts/{attempt}/result/").json()
    assert shown["score"] == "1.000"
    assert shown["questions"][0]["feedback"]["choices"][0]["feedback"] == "Three axes."


def _mark_viva(examiner: APIClient, attempt: int, levels: list[int]) -> None:
    viva = Response.objects.get(attempt_id=attempt, position=5)
    reply = examiner.post(
        f"/api/marking/responses/{viva.pk}/marks/", {"levels": levels}, format="json"
    )
    assert reply.status_code == 201, reply.content


def test_a_student_cannot_release(world: World, student_api: APIClient) -> None:
    reply = student_api.post(f"/api/quizzes/{world.quiz.pk}/release/")
    assert reply.status_code == 403
    assert reply.json()["error"]["code"] == "permission_denied"


def test_after_close_release_shows_scores_once_the_quiz_closes(
    world: World, student_api: APIClient
) -> None:
    world.quiz.release_policy = ReleasePolicy.AFTER_CLOSE
    world.quiz.closes_at = T0 + timedelta(hours=1)
    world.quiz.save()
    with time_machine.travel(T0, tick=False) as clock:
        attempt = _take(student_api, world.quiz.pk)
        first = f"/api/attempts/{attempt}/result/"
        assert student_api.get(first).json()["questions"][0]["score"] is None
        clock.move_to(T0 + timedelta(hours=1))
        shown = student_api.get(first).json()
        # The choice is scored; the written viva waits for a marker, so there is no total yet.
        assert shown["questions"][0]["points_awarded"] == "1.000"
        assert (shown["pending"], shown["score"], shown["questions"][5]["pending"]) == (
            True,
            None,
            True,
        )


def test_an_open_attempt_never_shows_scores(world: World, student_api: APIClient) -> None:
    attempt = start(student_api, world.quiz.pk)
    save(student_api, attempt["id"], 0, {"choice": 0})
    assert student_api.get(f"/api/attempts/{attempt['id']}/").json()["results_visible"] is False

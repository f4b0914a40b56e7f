"""The student flow through the API: start, autosave, submit, result."""

import json

from rest_framework.test import APIClient

from grading.models import Response
from tests.api.conftest import World
from tests.api.helpers import save, start, submit

RIGHT_ANSWERS = [
    {"choice": 0},
    {"choices": [0, 2]},
    {"value": True},
    {"value": "11"},
    {"text": " Grad_Fn "},
]


def test_a_student_takes_the_quiz_and_gets_a_scored_attempt(
    world: World, student_api: APIClient
) -> None:
    attempt = start(student_api, world.quiz.pk)
    assert [r["question"]["type"] for r in attempt["responses"]][:2] == [
        "single_choice",
        "multiple_choice",
    ]
    for position, answer in enumerate(RIGHT_ANSWERS):
        assert save(student_api, attempt["id"], position, answer).status_code == 200
    save(student_api, attempt["id"], 5, {"text": "It sums over uses."})

    result = submit(student_api, attempt["id"]).json()

    assert result["status"] == "submitted"  # the viva waits for an examiner
    # No total while an answer is pending: 5 of 9 is not the student's score.
    assert (result["pending"], result["score"], result["final_score"]) == (True, None, None)
    assert result["max_score"] == "9.000"
    assert sum(float(r["points_awarded"] or 0) for r in result["responses"]) == 5.0
    statuses = [r["status"] for r in result["responses"]]
    assert statuses == ["graded"] * 5 + ["needs_marking"]
    assert [r["pending"] for r in result["responses"]] == [False] * 5 + [True]
    assert result["responses"][5]["score"] is None
    assert result["responses"][3]["feedback"] == {"answer": "2x + 5 at 3."}


def test_the_result_endpoint_lists_per_question_feedback(
    world: World, student_api: APIClient
) -> None:
    attempt = start(student_api, world.quiz.pk)
    save(student_api, attempt["id"], 0, {"choice": 1})
    submit(student_api, attempt["id"])

    result = student_api.get(f"/api/attempts/{attempt['id']}/result/").json()

    first = result["questions"][0]
    assert first["score"] == 0.0
    assert first["feedback"]["choices"][0]["feedback"] == "That drops the batch axis."
    assert result["questions"][1]["feedback"] == {"general": "No answer was given."}


def test_starting_twice_resumes_the_open_attempt(world: World, student_api: APIClient) -> None:
    url = f"/api/quizzes/{world.quiz.pk}/attempts/"
    first = student_api.post(url)
    assert first.status_code == 201
    again = student_api.post(url)
    assert again.status_code == 200  # resumed, not created
    assert again.json()["id"] == first.json()["id"]


def test_the_student_view_carries_no_answers_solutions_or_rubrics(
    world: World, student_api: APIClient
) -> None:
    attempt = start(student_api, world.quiz.pk)
    text = json.dumps(attempt)
    for secret in (
        "correct",
        "MODEL-ANSWER-SECRET",
        "GUIDANCE-SECRET",
        "RUBRIC-SECRET",
        "That drops the batch axis",
        "tolerance",
        'grad_fn"',
        "2x + 5",
    ):
        assert secret not in text
    choice = attempt["responses"][0]["question"]["choices"][0]
    assert set(choice) == {"id", "text", "html"}


def test_a_stale_autosave_is_refused_with_the_current_version(
    world: World, student_api: APIClient
) -> None:
    attempt = start(student_api, world.quiz.pk)
    assert save(student_api, attempt["id"], 0, {"choice": 0}, version=0).json()["version"] == 1
    assert save(student_api, attempt["id"], 0, {"choice": 2}, version=1).status_code == 200

    stale = save(student_api, attempt["id"], 0, {"choice": 1}, version=1)

    assert stale.status_code == 409
    assert stale.json()["error"]["code"] == "stale_version"
    assert stale.json()["error"]["fields"] == {"current_version": ["2"]}
    assert Response.objects.get(attempt_id=attempt["id"], position=0).answer == {"choice": 2}


def test_an_invalid_answer_is_refused_as_invalid_even_from_a_stale_version(
    world: World, student_api: APIClient
) -> None:
    attempt = start(student_api, world.quiz.pk)
    assert save(student_api, attempt["id"], 0, {"choice": 2}, version=0).status_code == 200

    invalid = save(student_api, attempt["id"], 0, {"choice": "two"}, version=0)

    assert invalid.status_code == 400, invalid.content
    assert list(invalid.json()["error"]["fields"]) == ["answer.choice"]
    assert Response.objects.get(attempt_id=attempt["id"], position=0).answer == {"choice": 2}


def test_submitting_twice_returns_the_same_result_and_grades_once(
    world: World, student_api: APIClient
) -> None:
    attempt = start(student_api, world.quiz.pk)
    save(student_api, attempt["id"], 0, {"choice": 0})
    first = submit(student_api, attempt["id"], key="k-1")
    graded_at = Response.objects.get(attempt_id=attempt["id"], position=0).graded_at

    second = submit(student_api, attempt["id"], key="k-1")

    assert second.status_code == first.status_code == 200
    assert {**second.json(), "server_time": None} == {**first.json(), "server_time": None}
    assert Response.objects.get(attempt_id=attempt["id"], position=0).graded_at == graded_at


def test_answers_are_refused_after_submission(world: World, student_api: APIClient) -> None:
    attempt = start(student_api, world.quiz.pk)
    submit(student_api, attempt["id"])
    late = save(student_api, attempt["id"], 0, {"choice": 0})
    assert late.status_code == 409
    assert late.json()["error"]["code"] == "attempt_closed"


def test_the_attempt_list_is_filtered_and_paginated(world: World, student_api: APIClient) -> None:
    attempt = start(student_api, world.quiz.pk)
    listing = student_api.get("/api/attempts/", {"status": "open", "ordering": "-number"}).json()
    assert listing["count"] == 1
    assert listing["results"][0]["id"] == attempt["id"]
    assert student_api.get("/api/attempts/", {"status": "graded"}).json()["count"] == 0

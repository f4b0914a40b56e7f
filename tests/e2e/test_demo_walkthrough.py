"""The issue's "done when": the demo student takes the demo quiz end to end.

`load_demo` loads the real bank, users and quizzes (as `make run` does); the
student signs in with a token, starts the quiz, autosaves an answer to every
question, submits, and reads back a scored attempt with feedback per question:
the code answer graded by a real worker on Redis, the viva answer after the
demo examiner marks it on its rubric.
"""

import time
from typing import Any

import pytest
from django.core.management import call_command
from pytest_django import Settings
from rest_framework.test import APIClient

from config.celery_workers import worker_processes
from grading.models import Response
from quizbank.presenters import shown_order

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def signed_in(username: str, password: str) -> APIClient:
    token = APIClient().post(
        "/api/auth/token/", {"username": username, "password": password}, format="json"
    )
    assert token.status_code == 200, token.content
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    return client


def correct_answer(content: dict[str, Any], choice_order: list[int]) -> dict[str, Any]:
    """What a well-prepared student answers; the test reads the bank, the student can't.
    Choices are named by their place on the student's (shuffled) page."""
    kind = content["type"]
    places = shown_order(content, choice_order)
    right = [places.index(i) for i, c in enumerate(content.get("choices", [])) if c.get("correct")]
    if kind == "single_choice":
        return {"choice": right[0]}
    if kind == "multiple_choice":
        return {"choices": right}
    if kind == "true_false":
        return {"value": content["answer"]}
    if kind == "numeric":
        return {"value": content["answers"][0]["value"]}
    if kind == "short_text":
        return {"text": next(a["text"] for a in content["answers"] if "text" in a)}
    if kind == "code":
        return {"source": content["files"]["reference.py"]}
    return {"text": "Gradients add up across backward calls, so each step must zero them."}


def wait_for_code(client: APIClient, attempt: int) -> None:
    for _ in range(1200):
        questions = client.get(f"/api/attempts/{attempt}/result/").json()["questions"]
        code = [q for q in questions if q["type"] == "code"]
        if code and all(q["status"] == "graded" for q in code):
            return
        time.sleep(0.05)
    raise AssertionError("the code answer was not graded within a minute")


def mark_every_viva(examiner: APIClient, quiz: int) -> int:
    queue = examiner.get(f"/api/marking/queue/?quiz={quiz}").json()["results"]
    for item in queue:
        answer = examiner.get(f"/api/marking/responses/{item['id']}/").json()
        top_levels = [len(criterion["levels"]) - 1 for criterion in answer["rubric"]]
        marked = examiner.post(
            f"/api/marking/responses/{item['id']}/marks/",
            {"levels": top_levels, "comment": "Clear and complete."},
            format="json",
        )
        assert marked.status_code == 201, marked.content
    return len(queue)


def test_the_demo_student_gets_every_question_scored_with_feedback(
    settings: Settings, redis_url: str
) -> None:
    settings.DEBUG = True
    call_command("load_demo", stdout=None)
    student = signed_in("student", "student-demo-pass")
    quiz = next(
        q
        for q in student.get("/api/quizzes/").json()["results"]
        if q["slug"] == "fundamentals-check"
    )

    with worker_processes(redis_url):
        attempt = student.post(f"/api/quizzes/{quiz['id']}/attempts/").json()
        for row in Response.objects.filter(attempt_id=attempt["id"]).order_by("position"):
            saved = student.put(
                f"/api/attempts/{attempt['id']}/responses/{row.position}/",
                {
                    "answer": correct_answer(row.question_version.content, row.choice_order),
                    "version": row.version,
                },
                format="json",
            )
            assert saved.status_code == 200, saved.content
        assert student.post(f"/api/attempts/{attempt['id']}/submit/").status_code == 200
        wait_for_code(student, attempt["id"])

    examiner = signed_in("examiner", "examiner-demo-pass")
    assert mark_every_viva(examiner, quiz["id"]) >= 1

    result = student.get(f"/api/attempts/{attempt['id']}/result/").json()
    kinds = {q["type"] for q in result["questions"]}
    assert {"single_choice", "multiple_choice", "true_false", "numeric"} <= kinds
    assert {"short_text", "code", "viva"} <= kinds
    assert [q["status"] for q in result["questions"]] == ["graded"] * len(result["questions"])
    assert [q["score"] for q in result["questions"]] == [1.0] * len(result["questions"])
    assert all(q["feedback"] is not None for q in result["questions"])
    assert result["score"] == result["max_score"]

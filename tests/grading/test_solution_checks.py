"""Authors check a code question's solutions before students meet it: a real worker grades
reference.py, correct_*.py and wrong_*.py as answers, and each is judged by what its name
says it must earn."""

import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from config.celery_workers import worker_processes
from grading.services.solution_checks import QUEUE_PATIENCE_S, solution_check_state
from quizbank.models import Question, Role
from tests.grading.content import CODE, VIVA
from tests.grading.factories import api_as, member, new_course, question

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
RIGHT = "def double(x):\n    return x * 2\n"
# Right on vectors, wrong on anything else: only a case with a matrix catches it.
VECTORS_ONLY = "def double(x):\n    return x * (2 if x.dim() == 1 else 3)\n"


def _code(**files: str) -> dict[str, Any]:
    return {**CODE, "files": {**CODE["files"], **files}}


def _checked(api: APIClient, question: Question, timeout_s: float = 90.0) -> dict[str, Any]:
    started = api.post(f"/api/questions/{question.pk}/solution-checks/")
    assert started.status_code == 202, started.content
    url = f"/api/questions/{question.pk}/solution-checks/{started.json()['check']}/"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        body: dict[str, Any] = api.get(url).json()
        if body["finished"]:
            return body
        time.sleep(0.1)
    raise AssertionError(f"the check did not finish in {timeout_s} s")


def _states(body: dict[str, Any]) -> dict[str, str]:
    return {row["file"]: row["state"] for row in body["solutions"]}


def test_the_workers_judge_every_solution_by_its_name(redis_url: str) -> None:
    course = new_course()
    author = api_as(member(course, Role.AUTHOR))
    sound = question(course, _code(**{"correct_twice.py": "def double(x):\n    return x + x\n"}))
    no_catch = question(course, _code(**{"wrong_same.py": RIGHT}))
    hidden_only = question(
        course,
        {
            **_code(**{"wrong_vectors.py": VECTORS_ONLY}),
            "cases": [
                *CODE["cases"],
                {"name": "matrix", "hidden": True, "args": [{"tensor": [[1.0], [2.0]]}]},
            ],
        },
    )
    broken = question(course, _code(**{"reference.py": "def double(x):\n    return x.twice()\n"}))

    with worker_processes(redis_url, count=1):
        bodies = {
            name: _checked(author, q)
            for name, q in [
                ("sound", sound),
                ("no_catch", no_catch),
                ("hidden_only", hidden_only),
                ("broken", broken),
            ]
        }

    assert bodies["sound"]["passed"] is True
    assert _states(bodies["sound"]) == {
        "reference.py": "as_labelled",
        "correct_twice.py": "as_labelled",
        "wrong_add.py": "as_labelled",
    }
    assert [row["file"] for row in bodies["sound"]["solutions"]][0] == "reference.py"

    assert bodies["no_catch"]["passed"] is False
    [same] = [row for row in bodies["no_catch"]["solutions"] if row["file"] == "wrong_same.py"]
    assert (same["state"], same["score"]) == ("problem", 1.0)
    assert "must score below 1" in same["problem"]

    [vectors] = [r for r in bodies["hidden_only"]["solutions"] if r["file"] == "wrong_vectors.py"]
    assert vectors["state"] == "problem"
    assert "caught only by hidden cases (matrix)" in vectors["problem"]

    assert bodies["broken"]["passed"] is False
    assert _states(bodies["broken"])["reference.py"] == "problem"
    assert "twice" in bodies["broken"]["solutions"][0]["problem"]


def test_only_the_courses_authors_check_and_only_code_questions(db: None) -> None:
    course = new_course()
    code, viva = question(course, CODE), question(course, VIVA)
    url = f"/api/questions/{code.pk}/solution-checks/"
    for role in (Role.STUDENT, Role.EXAMINER):
        assert api_as(member(course, role)).post(url).status_code == 404
    assert api_as(member(new_course(), Role.AUTHOR)).post(url).status_code == 404
    refused = api_as(member(course, Role.AUTHOR)).post(f"/api/questions/{viva.pk}/solution-checks/")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "not_checkable"


def test_a_check_of_another_question_or_a_made_up_one_is_not_found(db: None) -> None:
    course = new_course()
    mine, other = question(course, CODE), question(course, CODE)
    author = api_as(member(course, Role.AUTHOR))
    assert other.current_version is not None
    for check in (
        f"{other.current_version.pk}-1700000000-0123456789abcdef",
        "1-2-3",
        "x" * 500,
        "../../etc",
        f"{10**30}-1-0123456789abcdef",
    ):
        reply = author.get(f"/api/questions/{mine.pk}/solution-checks/{check}/")
        assert reply.status_code == 404, (check, reply.content)
        assert reply.json()["error"]["code"] == "not_found"


def test_a_check_no_worker_took_says_so_instead_of_waiting_for_ever(db: None) -> None:
    question_ = question(new_course(), CODE)
    assert question_.current_version is not None
    asked = timezone.now()
    check = f"{question_.current_version.pk}-{int(asked.timestamp())}-0123456789abcdef"
    waiting = solution_check_state(question=question_, check_id=check, now=asked)
    assert {v.state for v in waiting} == {"waiting"}
    later = asked + timedelta(seconds=QUEUE_PATIENCE_S + 10)
    lost = solution_check_state(question=question_, check_id=check, now=later)
    assert {v.state for v in lost} == {"lost"}
    assert "No worker took it in time" in lost[0].problem

"""Authors check a code question's solutions before students meet it: a real worker grades
reference.py, correct_*.py and wrong_*.py as answers, and each is judged by what its name
says it must earn."""

import time
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from config.celery_workers import worker_processes
from grading.services import solution_checks
from grading.services.solution_checks import (
    GENERATOR_WAIT_S,
    solution_check_finished,
    solution_check_state,
)
from quizbank.models import Question, Role
from runner import api as runner_api
from runner.models import JobRecord
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


def _check_id(question_: Question, give_up: datetime) -> str:
    assert question_.current_version is not None
    return f"{question_.current_version.pk}-{int(give_up.timestamp())}-0123456789abcdef"


def test_a_check_no_worker_took_says_so_instead_of_waiting_for_ever(db: None) -> None:
    question_ = question(new_course(), CODE)
    give_up = timezone.now() + timedelta(minutes=5)
    check = _check_id(question_, give_up)
    waiting = solution_check_state(question=question_, check_id=check, now=timezone.now())
    assert {v.state for v in waiting} == {"waiting"}
    later = give_up + timedelta(seconds=1)
    lost = solution_check_state(question=question_, check_id=check, now=later)
    assert {v.state for v in lost} == {"lost"}
    assert "No worker graded it in time" in lost[0].problem


def test_a_job_a_worker_took_and_never_finished_is_given_up_too(db: None) -> None:
    """The worker died with it, and its redelivery came after the message's expiry."""
    question_ = question(new_course(), CODE)
    give_up = timezone.now() + timedelta(minutes=5)
    check = _check_id(question_, give_up)
    for index in range(2):
        JobRecord.objects.create(
            job_id=f"check-{check}-{index}", kind="grade", deliveries=1, claimed_at=timezone.now()
        )
    later = give_up + timedelta(seconds=1)
    verdicts = solution_check_state(question=question_, check_id=check, now=later)
    assert solution_check_finished(verdicts)
    assert {v.state for v in verdicts} == {"lost"}


@pytest.mark.parametrize("stamp", ["999999999999", "253402300799", "0"])
def test_a_check_id_from_no_check_made_here_is_not_found(db: None, stamp: str) -> None:
    """Past the year 9999, or further off than any check runs: refused, never a 500."""
    course = new_course()
    question_ = question(course, CODE)
    assert question_.current_version is not None
    check = f"{question_.current_version.pk}-{stamp}-0123456789abcdef"
    api = api_as(member(course, Role.AUTHOR))
    reply = api.get(f"/api/questions/{question_.pk}/solution-checks/{check}/")
    if stamp == "0":  # long past: every job given up
        assert {row["state"] for row in reply.json()["solutions"]} == {"lost"}
        return
    assert reply.status_code == 404, reply.content


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[runner_api.GradingJob]:
    """The jobs a check hands the runner, kept here instead of sent."""
    jobs: list[runner_api.GradingJob] = []

    def submit(job: runner_api.GradingJob, **_: Any) -> str:
        jobs.append(job)
        return job.job_id

    monkeypatch.setattr(runner_api, "submit_grading", submit)
    cache.clear()
    return jobs


def test_the_page_counts_checks_against_the_apis_rate(
    db: None, queued: list[runner_api.GradingJob]
) -> None:
    course = new_course()
    question_ = question(course, CODE)
    page = Client()
    page.force_login(member(course, Role.AUTHOR))
    replies = [
        page.post(f"/author/questions/{question_.pk}/solution-checks/").content.decode()
        for _ in range(12)
    ]
    assert "Too many checks in a short time" in replies[-1]
    assert len(queued) == 10 * 2  # ten checks of two files, then refused
    cache.clear()


def test_a_question_with_more_solutions_than_a_check_grades_is_refused(
    db: None, queued: list[runner_api.GradingJob]
) -> None:
    wrong = {f"wrong_w{i}.py": "def double(x):\n    return x + 2\n" for i in range(40)}
    course = new_course()
    question_ = question(course, {**CODE, "files": {**CODE["files"], **wrong}})
    reply = api_as(member(course, Role.AUTHOR)).post(
        f"/api/questions/{question_.pk}/solution-checks/"
    )
    assert reply.status_code == 409
    assert "at most 30" in reply.json()["error"]["message"]
    assert queued == []


def test_a_parameterised_question_is_checked_on_the_variant_students_are_graded_on(
    db: None, queued: list[runner_api.GradingJob], monkeypatch: pytest.MonkeyPatch
) -> None:
    waits: list[float] = []

    def generated(*, content: Any, seed: int, timeout_s: float) -> tuple[Any, Any]:
        waits.append(timeout_s)
        return {"k": 2}, {}

    monkeypatch.setattr(solution_checks, "variant_generate", generated)
    generator = "def generate(rng):\n    return {'params': {'k': 2}, 'answers': {}}\n"
    content = {
        **CODE,
        "prompt": "Write `double(x)` returning {{k}}x.",
        "files": {
            "reference.py": "def double(x):\n    return x * {{k}}\n",
            "wrong_add.py": "def double(x):\n    return x + {{k}}\n",
            "generate.py": generator,
        },
    }
    course = new_course()
    question_ = question(course, content)
    reply = api_as(member(course, Role.AUTHOR)).post(
        f"/api/questions/{question_.pk}/solution-checks/"
    )
    assert reply.status_code == 202, reply.content
    assert [job.source for job in queued] == [
        "def double(x):\n    return x * 2\n",
        "def double(x):\n    return x + 2\n",
    ]
    assert all(job.reference_source == queued[0].source for job in queued)
    # The variant comes from a worker: the request waits no longer than a Run would.
    assert waits == [GENERATOR_WAIT_S]

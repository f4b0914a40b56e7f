"""The question editor's "Check the solutions": the button on a code question's page, the
check's table as it fills in (polled by htmx until every solution is judged), and a refusal
that says why (not a code question, the job queue down)."""

import re
from collections.abc import Iterator

import pytest
from django.test import Client
from django.utils import timezone

from config.celery import app
from config.celery_workers import use_broker
from quizbank.models import Course, Role
from runner.models import JobRecord, JobState
from tests.faults.servers import broker_unreachable
from tests.grading.content import CODE, VIVA
from tests.grading.factories import member, new_course, question

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker(redis_url: str) -> Iterator[None]:
    """This process's Celery app on the test Redis, where the check's jobs wait unrun."""
    before = str(app.conf.broker_url)
    use_broker(redis_url)
    try:
        yield
    finally:
        app.control.purge()
        use_broker(before)


def _author_page(course: Course) -> Client:
    page = Client()
    page.force_login(member(course, Role.AUTHOR))
    return page


def test_a_code_questions_page_offers_the_check_and_a_viva_does_not() -> None:
    course = new_course()
    page = _author_page(course)
    code, viva = question(course, CODE), question(course, VIVA)
    assert "Check the solutions" in page.get(f"/author/questions/{code.pk}/").content.decode()
    assert "Check the solutions" not in page.get(f"/author/questions/{viva.pk}/").content.decode()


def test_the_check_fills_in_as_the_workers_judge_each_solution(broker: None) -> None:
    course = new_course()
    code = question(course, CODE)
    page = _author_page(course)

    started = page.post(f"/author/questions/{code.pk}/solution-checks/")

    assert started.status_code == 200
    text = started.content.decode()
    assert "The workers are grading the solutions" in text
    poll = re.search(r'hx-get="([^"]+)"', text)
    assert poll is not None
    assert text.count("<tr>") == 3  # the header, reference.py and wrong_add.py
    check = poll.group(1).rstrip("/").rsplit("/", 1)[1]
    # What a worker stores for each job (the API test grades them on a real one).
    for index, (score, status) in enumerate([(1.0, "ok"), (1.0, "ok")]):
        job_id = f"check-{check}-{index}"
        result = {"job_id": job_id, "status": status, "score": score}
        JobRecord.objects.create(
            job_id=job_id,
            kind="grade",
            state=JobState.FINISHED,
            status=status,
            score=score,
            result={**result, "cases": [], "message": ""},
            finished_at=timezone.now(),
        )
    done = page.get(poll.group(1)).content.decode()
    assert "hx-get" not in done  # finished: no more polling
    assert "Some solutions did not earn what their names say" in done
    assert "must score below 1" in done  # wrong_add.py scored 1.0


def test_a_refusal_says_why() -> None:
    course = new_course()
    page = _author_page(course)
    viva = question(course, VIVA)
    refused = page.post(f"/author/questions/{viva.pk}/solution-checks/").content.decode()
    assert "Not checked: Only a code question has solutions to check." in refused
    code = question(course, CODE)
    with broker_unreachable():
        down = page.post(f"/author/questions/{code.pk}/solution-checks/").content.decode()
    assert "Not checked: The job queue cannot take work just now" in down
    outsider = Client()
    outsider.force_login(member(course, Role.STUDENT))
    assert outsider.post(f"/author/questions/{code.pk}/solution-checks/").status_code == 404
    garbage = page.get(f"/author/questions/{code.pk}/solution-checks/1-2-x/").content.decode()
    assert "Not checked: No such check" in garbage

"""On the real broker: the examiner's release queues the passback, and a real worker
sends the score to the platform's score service over HTTP."""

import time

import pytest
from rest_framework.test import APIClient

from config.celery_workers import worker_processes
from lms.models import LtiScoreSync
from tests.lms.lti_world import Lti
from tests.lms.test_lti_passback import _mark, taken  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_a_real_worker_publishes_the_released_score(
    redis_url: str,
    lti: Lti,
    taken: tuple[APIClient, int],  # noqa: F811
) -> None:
    examiner, attempt = taken
    with worker_processes(redis_url, count=1, queues="default"):
        _mark(examiner, attempt, 2)
        reply = examiner.post(f"/api/quizzes/{lti.quiz.pk}/release/", {}, format="json")
        assert reply.status_code == 200, reply.content
        deadline = time.monotonic() + 60
        sent = LtiScoreSync.objects.filter(status="sent")
        while time.monotonic() < deadline and not (lti.grades.scores and sent.exists()):
            time.sleep(0.1)
    [score] = lti.grades.scores
    assert (score["userId"], score["scoreGiven"], score["gradingProgress"]) == (
        "moodle-user-7",
        2.0,
        "FullyGraded",
    )

"""A platform's launch names the service URLs we call back (AGS line items, NRPS
memberships): one naming an internal address that is not where the site admin registered
the platform is refused before any request, and the refusal is kept where examiners see
it. The loopback test platform itself is reached because it is the registered host (every
passback and roster test shows that)."""

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from grading.models import Attempt
from lms.errors import ScoreNotSent
from lms.models import LtiScoreSync, SyncStatus
from lms.services.ags import score_publish
from quizbank.models import ReleasePolicy
from tests.grading.content import TRUE_FALSE
from tests.grading.factories import add_slots, member, question
from tests.lms.lti_world import Lti, launch

INTERNAL = ("http://10.1.2.3/lineitems/9/lineitem", "http://169.254.169.254/latest/meta-data/")


@pytest.mark.parametrize("line_item", INTERNAL)
def test_a_line_item_at_an_internal_address_gets_no_score(lti: Lti, line_item: str) -> None:
    lti.quiz.release_policy = ReleasePolicy.MANUAL
    lti.quiz.save()
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE))
    launch(lti, line_item=line_item)  # an untimed quiz: the launch starts the attempt
    attempt = Attempt.objects.get(quiz=lti.quiz)
    body = {"version": 0, "answer": {"value": True}}
    url = f"/api/attempts/{attempt.pk}/responses/0/"
    assert lti.browser.put(url, body, content_type="application/json").status_code == 200
    assert lti.browser.post(f"/api/attempts/{attempt.pk}/submit/").status_code == 200
    examiner = APIClient()
    examiner.force_authenticate(member(lti.quiz.course, "examiner"))
    assert (
        examiner.post(f"/api/quizzes/{lti.quiz.pk}/release/", {}, format="json").status_code == 200
    )
    sync = LtiScoreSync.objects.get()

    with pytest.raises(ScoreNotSent, match="service URL is refused.*internal address"):
        score_publish(sync_id=sync.pk, now=timezone.now())

    sync.refresh_from_db()
    assert sync.status == SyncStatus.FAILED
    assert "internal address" in sync.last_error
    assert lti.grades.scores == []


def test_a_roster_at_an_internal_address_is_not_fetched(lti: Lti) -> None:
    launch(lti, memberships_url="http://192.168.0.7/memberships/course-1")
    api = APIClient()
    api.force_authenticate(member(lti.quiz.course, "examiner"))

    reply = api.post(f"/api/courses/{lti.quiz.course_id}/lti-roster-sync/")

    assert reply.status_code == 502, reply.content
    assert "service URL is refused" in reply.json()["error"]["message"]

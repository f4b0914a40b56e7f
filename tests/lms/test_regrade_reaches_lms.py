"""A bulk regrade's changed scores reach the LMS as a single mark change does: the
released score goes to the platform's gradebook again and `mark.changed` is queued for
webhook subscribers, once the chunk commits; an unchanged score sends nothing."""

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from grading.models import Attempt
from grading.models.regrade import RegradeItem
from grading.services.regrade.runs import regrade_run_start
from grading.tasks import regrade_chunk_task
from lms.models import LtiScoreSync, SyncStatus, WebhookDelivery
from lms.services.ags import score_publish
from lms.services.webhooks import subscription_create
from quizbank.models import Question, ReleasePolicy
from tests.grading.content import SINGLE
from tests.grading.factories import (
    add_slots,
    api_as,
    member,
    new_version,
    question,
    submitted_attempt,
)
from tests.lms.conftest import MakeClient
from tests.lms.lti_world import Lti, launch

# The author had marked the wrong choice correct; the fix makes "3" (index 0) right.
BROKEN = {**SINGLE, "choices": [{**c, "correct": i == 1} for i, c in enumerate(SINGLE["choices"])]}


def _publish_pending() -> dict[int, str]:
    """What the Celery task does for each row the signals marked, by student."""
    pending = LtiScoreSync.objects.filter(status=SyncStatus.PENDING)
    return {s.user_id: score_publish(sync_id=s.pk, now=timezone.now()) for s in pending}


def _launched_student(lti: Lti, user_id: str, pick: int) -> Attempt:
    reply, _ = launch(lti, user_id=user_id, line_item=f"{lti.base}/lineitems/9/lineitem")
    assert reply.status_code == 302, reply.content
    student = User.objects.get(external_identities__external_id=user_id)
    return submitted_attempt(lti.quiz, student, {0: {"choice": pick}})


@pytest.fixture
def released(lti: Lti, make_client: MakeClient, settings: Any) -> tuple[Question, Attempt, Attempt]:
    """Two launched students' released scores, both 0 under the broken key; a webhook
    subscriber of the course."""
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]
    lti.quiz.release_policy, lti.quiz.shuffle_choices = ReleasePolicy.MANUAL, False
    lti.quiz.save()
    broken = question(lti.quiz.course, BROKEN)
    add_slots(lti.quiz, broken)
    client, _ = make_client(scopes=["grades:read"])
    member(lti.quiz.course, "examiner", client.user)
    subscription_create(client=client, url="http://127.0.0.1:9/hook", events=["mark.changed"])
    fixed = _launched_student(lti, "moodle-user-7", pick=0)
    unchanged = _launched_student(lti, "moodle-user-8", pick=2)
    examiner = api_as(member(lti.quiz.course, "examiner"))
    assert (
        examiner.post(f"/api/quizzes/{lti.quiz.pk}/release/", {}, format="json").status_code == 200
    )
    assert set(_publish_pending().values()) == {"sent"}
    assert [s["scoreGiven"] for s in lti.grades.scores] == [0.0, 0.0]
    return broken, fixed, unchanged


def _regrade(lti: Lti, broken: Question, content: dict[str, Any], capture: Any) -> list[Any]:
    """Give the question a new version and run the regrade's chunk as its worker does;
    the callbacks it left for after the commit."""
    new_version(broken, content)
    broken.refresh_from_db()
    examiner = member(lti.quiz.course, "examiner")
    with capture(execute=False):
        run = regrade_run_start(
            quiz=lti.quiz,
            question=broken,
            mode="apply",
            reason="key",
            actor=examiner,
            now=timezone.now(),
        )
    ids = list(RegradeItem.objects.filter(run=run).values_list("pk", flat=True))
    with capture(execute=False) as callbacks:
        assert regrade_chunk_task(run.pk, ids) == 2
    return list(callbacks)


def test_a_regraded_released_score_reaches_the_gradebook_and_the_webhook_once(
    lti: Lti, released: tuple[Question, Attempt, Attempt], django_capture_on_commit_callbacks: Any
) -> None:
    broken, fixed, unchanged = released
    callbacks = _regrade(lti, broken, SINGLE, django_capture_on_commit_callbacks)
    assert len(callbacks) == 2  # the passback and the webhook deliveries, after the commit
    assert _publish_pending() == {fixed.user_id: "sent"}  # the unchanged student: nothing
    sent = lti.grades.scores[-1]
    assert (sent["userId"], sent["scoreGiven"]) == ("moodle-user-7", sent["scoreMaximum"])
    assert len(lti.grades.scores) == 3
    [delivery] = WebhookDelivery.objects.all()
    assert delivery.event == "mark.changed"
    data = delivery.payload["data"]
    assert (data["attempt"], data["user"], data["position"]) == (fixed.pk, fixed.user_id, 0)


def test_a_regrade_that_changes_no_score_sends_nothing(
    lti: Lti, released: tuple[Question, Attempt, Attempt], django_capture_on_commit_callbacks: Any
) -> None:
    broken, _, _ = released
    callbacks = _regrade(lti, broken, BROKEN, django_capture_on_commit_callbacks)
    assert callbacks == []
    assert not LtiScoreSync.objects.filter(status=SyncStatus.PENDING).exists()
    assert not WebhookDelivery.objects.exists()
    assert len(lti.grades.scores) == 2

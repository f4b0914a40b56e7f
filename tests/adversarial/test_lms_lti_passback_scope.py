"""Grade passback sends a platform only its own users' scores: a local student, or one
another platform launched, in the same quiz is never posted to this platform's line
item under any user id."""

from django.contrib.auth.models import User
from django.utils import timezone

from lms.models import ExternalIdentity, LtiScoreSync, SyncStatus
from lms.services.ags import score_publish
from quizbank.models import ReleasePolicy
from tests.grading.content import TRUE_FALSE
from tests.grading.factories import add_slots, api_as, member, question, submitted_attempt
from tests.lms.lti_world import Lti, launch


def test_only_the_platforms_own_users_scores_reach_its_line_item(lti: Lti) -> None:
    lti.quiz.release_policy = ReleasePolicy.MANUAL
    lti.quiz.save()
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE))
    reply, _ = launch(lti, line_item=f"{lti.base}/lineitems/9/lineitem")
    assert reply.status_code == 302
    own = ExternalIdentity.objects.get(external_id="moodle-user-7").user
    local = member(lti.quiz.course, "student")
    elsewhere = member(lti.quiz.course, "student")
    ExternalIdentity.objects.create(
        namespace="lti:https://other-lms.example", external_id="moodle-user-7", user=elsewhere
    )
    student: User
    for student in (own, local, elsewhere):
        submitted_attempt(lti.quiz, student, {0: {"value": True}})
    examiner = api_as(member(lti.quiz.course, "examiner"))
    assert (
        examiner.post(f"/api/quizzes/{lti.quiz.pk}/release/", {}, format="json").status_code == 200
    )

    pending = LtiScoreSync.objects.filter(status=SyncStatus.PENDING)
    for sync_id in list(pending.values_list("pk", flat=True)):
        score_publish(sync_id=sync_id, now=timezone.now())

    assert [s["userId"] for s in lti.grades.scores] == ["moodle-user-7"]
    assert len(lti.grades.scores) == 1

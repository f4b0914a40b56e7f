"""Grade passback end to end: an LTI launch, the student takes the quiz signed in by it,
the examiner releases, and the platform's score service receives the score over HTTP;
a re-mark publishes again, an older score never replaces a newer one, and a failure is
kept for examiners to re-send."""

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from lti_tool.models import Key
from rest_framework.test import APIClient

from grading.models import Response, ResponseStatus
from grading.services.code import code_result_apply
from lms.errors import ScoreNotSent
from lms.models import ExternalIdentity, LtiLineItem, LtiScoreSync, SyncStatus
from lms.services.ags import score_publish, score_syncs_unsent
from lms.tasks import resend_unsent
from quizbank.models import QuizAccessOverride, ReleasePolicy
from tests.faults.servers import broker_unreachable
from tests.grading.content import CODE, TRUE_FALSE, VIVA
from tests.grading.factories import add_slots, member, new_quiz, new_user, question
from tests.lms.conftest import RESEND_AFTER, CaptureCommits
from tests.lms.internal import internal_service
from tests.lms.lti_world import Lti, launch


def _json(browser: Client, method: str, url: str, body: Any = None) -> Any:
    reply = getattr(browser, method)(url, body, content_type="application/json")
    assert reply.status_code in (200, 201), (url, reply.content)
    return reply.json()


def _take_quiz_in_the_browser(lti: Lti) -> int:
    attempt = _json(lti.browser, "post", f"/api/quizzes/{lti.quiz.pk}/attempts/")
    for position, answer in ((0, {"value": True}), (1, {"text": "They sum across calls."})):
        body = {"version": 0, "answer": answer}
        _json(lti.browser, "put", f"/api/attempts/{attempt['id']}/responses/{position}/", body)
    _json(lti.browser, "post", f"/api/attempts/{attempt['id']}/submit/")
    return int(attempt["id"])


def _publish_pending() -> list[str]:
    """What the Celery task does for each row the signals marked."""
    pending = LtiScoreSync.objects.filter(status=SyncStatus.PENDING).values_list("pk", flat=True)
    return [score_publish(sync_id=pk, now=timezone.now()) for pk in pending]


def _staffed(lti: Lti) -> APIClient:
    lti.quiz.release_policy = ReleasePolicy.MANUAL
    lti.quiz.save()
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE), question(lti.quiz.course, VIVA))
    examiner = APIClient()
    examiner.force_authenticate(member(lti.quiz.course, "examiner"))
    return examiner


def _mark(examiner: APIClient, attempt_id: int, level: int) -> int:
    viva = Response.objects.get(attempt_id=attempt_id, question_version__question__type="viva")
    url = f"/api/marking/responses/{viva.pk}/marks/"
    reply = examiner.post(url, {"levels": [level]}, format="json")
    assert reply.status_code == 201, reply.content
    return int(reply.json()["id"])


@pytest.fixture
def taken(lti: Lti) -> tuple[APIClient, int]:
    examiner = _staffed(lti)
    reply, _ = launch(lti, line_item=f"{lti.base}/lineitems/9/lineitem")
    assert reply.status_code == 302
    assert LtiLineItem.objects.get().quiz == lti.quiz
    return examiner, _take_quiz_in_the_browser(lti)


def test_the_released_score_reaches_the_platforms_gradebook(
    lti: Lti, taken: tuple[APIClient, int]
) -> None:
    examiner, attempt = taken
    _mark(examiner, attempt, 1)
    assert _publish_pending() == ["pending"]  # marked, not released: nothing is sent
    assert lti.grades.scores == []
    examiner.post(f"/api/quizzes/{lti.quiz.pk}/release/", {}, format="json")
    assert _publish_pending() == ["sent"]
    [score] = lti.grades.scores
    assert score["path"] == "/lineitems/9/lineitem/scores"
    assert score["userId"] == "moodle-user-7"
    assert (score["scoreGiven"], score["scoreMaximum"]) == (1.5, 2.0)
    assert (score["activityProgress"], score["gradingProgress"]) == ("Completed", "FullyGraded")


def test_a_remark_after_release_publishes_again_and_older_never_wins(
    lti: Lti, taken: tuple[APIClient, int]
) -> None:
    examiner, attempt = taken
    mark = _mark(examiner, attempt, 1)
    examiner.post(f"/api/quizzes/{lti.quiz.pk}/release/", {}, format="json")
    _publish_pending()
    body = {"levels": [2], "reason": "Second look: both parts are there."}
    reply = examiner.put(f"/api/marking/marks/{mark}/", body, format="json")
    assert reply.status_code == 200, reply.content
    assert _publish_pending() == ["sent"]
    assert [s["scoreGiven"] for s in lti.grades.scores] == [1.5, 2.0]
    sync = LtiScoreSync.objects.get()
    assert score_publish(sync_id=sync.pk, now=timezone.now()) == "sent"  # a repeat: no resend
    assert len(lti.grades.scores) == 2


def _marked_and_released(lti: Lti, taken: tuple[APIClient, int], level: int) -> APIClient:
    """The taken attempt's viva marked at `level` and the quiz released; the examiner."""
    examiner, attempt = taken
    _mark(examiner, attempt, level)
    examiner.post(f"/api/quizzes/{lti.quiz.pk}/release/", {}, format="json")
    return examiner


def _send_fails(lti: Lti, examiner: APIClient, why: str) -> tuple[LtiScoreSync, Any]:
    """Publish the one score, which fails saying `why`; its row as examiners see it."""
    sync = LtiScoreSync.objects.get()
    with pytest.raises(ScoreNotSent, match=why):
        score_publish(sync_id=sync.pk, now=timezone.now())
    [row] = examiner.get(f"/api/quizzes/{lti.quiz.pk}/lms-scores/").json()
    return sync, row


def test_a_failing_gradebook_is_shown_to_examiners_and_can_be_resent(
    lti: Lti, taken: tuple[APIClient, int]
) -> None:
    examiner, attempt = taken
    _mark(examiner, attempt, 2)
    lti.grades.fail_next = 1
    examiner.post(f"/api/quizzes/{lti.quiz.pk}/release/", {}, format="json")
    sync, row = _send_fails(lti, examiner, "500")
    assert (row["status"], row["tries"]) == ("failed", 1)
    assert "500" in row["last_error"]
    resent = examiner.post(f"/api/quizzes/{lti.quiz.pk}/lms-scores/resend/").json()
    assert resent == {"resent": [sync.pk]}
    assert _publish_pending() == ["sent"]
    assert [s["scoreGiven"] for s in lti.grades.scores] == [2.0]


def test_a_score_redirected_to_an_internal_host_is_not_sent_there(
    lti: Lti, taken: tuple[APIClient, int]
) -> None:
    examiner = _marked_and_released(lti, taken, 2)
    with internal_service() as (hits, internal):
        lti.grades.redirect_to = f"{internal}/admin/scores"
        _, row = _send_fails(lti, examiner, "redirect")
    assert row["status"] == "failed"
    assert hits == []


def test_a_send_after_every_tool_key_was_deleted_fails_saying_to_run_rotate_keys(
    lti: Lti, taken: tuple[APIClient, int]
) -> None:
    examiner = _marked_and_released(lti, taken, 2)
    Key.objects.all().delete()
    _, row = _send_fails(lti, examiner, "rotate_keys")
    assert row["status"] == "failed"
    assert "manage.py rotate_keys" in row["last_error"]
    assert lti.grades.scores == []


def test_students_cannot_see_or_resend_passback(lti: Lti, taken: tuple[APIClient, int]) -> None:
    student = User.objects.get(external_identities__external_id="moodle-user-7")
    api = APIClient()
    api.force_authenticate(student)
    assert api.get(f"/api/quizzes/{lti.quiz.pk}/lms-scores/").status_code == 403
    assert api.post(f"/api/quizzes/{lti.quiz.pk}/lms-scores/resend/").status_code == 403


def test_a_score_as_of_an_earlier_moment_than_the_last_sent_is_not_sent(
    lti: Lti, taken: tuple[APIClient, int]
) -> None:
    _marked_and_released(lti, taken, 1)
    _publish_pending()
    sync = LtiScoreSync.objects.get()
    later = timezone.now() + timedelta(hours=1)  # as if a newer score had been sent since
    LtiScoreSync.objects.filter(pk=sync.pk).update(
        sent_as_of=later, sent_payload={"newer": True}, status=SyncStatus.PENDING
    )
    assert score_publish(sync_id=sync.pk, now=timezone.now()) == "sent"
    assert len(lti.grades.scores) == 1


def test_a_release_with_a_viva_still_unmarked_is_pending_manual_until_marked(
    lti: Lti, taken: tuple[APIClient, int]
) -> None:
    examiner, attempt = taken
    viva = Response.objects.get(attempt_id=attempt, question_version__question__type="viva")
    override = {"override": {"responses": [viva.pk], "reason": "Marks follow next week."}}
    reply = examiner.post(f"/api/quizzes/{lti.quiz.pk}/release/", override, format="json")
    assert reply.status_code in (200, 201), reply.content
    assert _publish_pending() == ["sent"]
    [waiting] = lti.grades.scores
    assert (waiting["activityProgress"], waiting["gradingProgress"]) == (
        "Submitted",
        "PendingManual",
    )
    assert "scoreGiven" not in waiting
    _mark(examiner, attempt, 2)
    assert _publish_pending() == ["sent"]
    final = lti.grades.scores[-1]
    assert (final["gradingProgress"], final["scoreGiven"], final["scoreMaximum"]) == (
        "FullyGraded",
        2.0,
        2.0,
    )


def test_a_score_released_while_the_broker_was_down_reaches_the_lms_later(
    lti: Lti,
    taken: tuple[APIClient, int],
    django_capture_on_commit_callbacks: CaptureCommits,
) -> None:
    examiner, attempt = taken
    _mark(examiner, attempt, 1)
    LtiScoreSync.objects.all().delete()  # the mark's own send is not what this test is about
    with broker_unreachable(), django_capture_on_commit_callbacks(execute=True) as sends:
        reply = examiner.post(f"/api/quizzes/{lti.quiz.pk}/release/", {}, format="json")
    assert sends
    assert reply.status_code == 200, reply.content
    sync = LtiScoreSync.objects.get()
    assert (sync.status, sync.tries) == (SyncStatus.PENDING, 0)

    now = timezone.now()
    assert score_syncs_unsent(now=now) == []
    assert score_syncs_unsent(now=now + RESEND_AFTER) == [sync.pk]
    assert score_syncs_unsent(now=now + RESEND_AFTER + timedelta(days=2)) == [sync.pk]
    assert score_publish(sync_id=sync.pk, now=now + RESEND_AFTER) == "sent"
    assert len(lti.grades.scores) == 1
    assert score_syncs_unsent(now=now + RESEND_AFTER) == []


def test_the_beat_task_queues_nothing_when_nothing_was_lost(db: None) -> None:
    assert resend_unsent.apply().get() == {"deliveries": 0, "scores": 0}


# Grades that reach the LMS without an examiner's release.
SOURCE = "def double(x):\n    return x * 2\n"


def test_a_code_grade_landing_after_the_release_reaches_the_lms(lti: Lti) -> None:
    lti.quiz.release_policy = ReleasePolicy.MANUAL
    lti.quiz.shuffle_questions = False
    lti.quiz.save()
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE), question(lti.quiz.course, CODE))
    examiner = APIClient()
    examiner.force_authenticate(member(lti.quiz.course, "examiner"))
    reply, _ = launch(lti, line_item=f"{lti.base}/lineitems/9/lineitem")
    assert reply.status_code == 302

    attempt = _json(lti.browser, "post", f"/api/quizzes/{lti.quiz.pk}/attempts/")
    base = f"/api/attempts/{attempt['id']}"
    _json(lti.browser, "put", f"{base}/responses/0/", {"version": 0, "answer": {"value": True}})
    _json(lti.browser, "put", f"{base}/responses/1/", {"version": 0, "answer": {"source": SOURCE}})
    _json(lti.browser, "post", f"{base}/submit/")  # the runner hand-off waits for a commit
    code = Response.objects.get(attempt_id=attempt["id"], position=1)
    assert code.status == ResponseStatus.QUEUED

    override = {"override": {"responses": [code.pk], "reason": "Runner is slow today."}}
    reply = examiner.post(f"/api/quizzes/{lti.quiz.pk}/release/", override, format="json")
    assert reply.status_code in (200, 201), reply.content
    assert _publish_pending() == ["sent"]
    [waiting] = lti.grades.scores
    assert waiting["gradingProgress"] == "PendingManual"

    # The runner's verdict arrives: the attempt is now fully graded (2 of 2 points).
    payload = {"job_id": code.job_id, "status": "ok", "score": 1.0, "cases": []}
    assert code_result_apply(payload=payload, now=timezone.now())
    assert _publish_pending() == ["sent"]
    final = lti.grades.scores[-1]
    assert (final["gradingProgress"], final["scoreGiven"]) == ("FullyGraded", 2.0)


def _true_false_taken(lti: Lti) -> Any:
    """The student launched from the LMS answers one true/false question rightly and submits;
    the submit's reply."""
    add_slots(lti.quiz, question(lti.quiz.course, TRUE_FALSE))
    reply, _ = launch(lti, line_item=f"{lti.base}/lineitems/9/lineitem")
    assert reply.status_code == 302
    attempt = _json(lti.browser, "post", f"/api/quizzes/{lti.quiz.pk}/attempts/")
    base = f"/api/attempts/{attempt['id']}"
    _json(lti.browser, "put", f"{base}/responses/0/", {"version": 0, "answer": {"value": True}})
    return _json(lti.browser, "post", f"{base}/submit/")


def test_under_the_default_release_policy_a_graded_attempt_reaches_the_lms(lti: Lti) -> None:
    """The default policy (immediately) releases each attempt as it is graded: no examiner
    release ever happens, and the grade itself is what sends the score."""
    assert lti.quiz.release_policy == ReleasePolicy.IMMEDIATELY
    done = _true_false_taken(lti)
    assert (done["status"], done["results_visible"], done["score"]) == ("graded", True, "1.000")
    assert _publish_pending() == ["sent"]
    assert lti.grades.scores[-1]["scoreGiven"] == 1.0


def test_a_quiz_released_after_its_close_sends_the_grades_once_it_closes(lti: Lti) -> None:
    """Graded before the close: the send finds nothing released and waits; after the close,
    beat's `lms.resend_unsent` finds it due."""
    lti.quiz.release_policy = ReleasePolicy.AFTER_CLOSE
    lti.quiz.closes_at = timezone.now() + timedelta(hours=1)
    lti.quiz.save()
    _true_false_taken(lti)
    assert _publish_pending() == ["pending"]  # not released before the close
    assert lti.grades.scores == []
    assert score_syncs_unsent(now=timezone.now()) == []

    after_close = lti.quiz.closes_at + timedelta(minutes=1)
    [due] = score_syncs_unsent(now=after_close)
    assert score_publish(sync_id=due, now=after_close) == "sent"
    assert lti.grades.scores[-1]["scoreGiven"] == 1.0
    assert score_syncs_unsent(now=after_close) == []


def test_a_platform_that_hangs_fails_the_send_within_the_timeout(
    lti: Lti, taken: tuple[APIClient, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The send holds the student's sync row, which grading their next attempt waits on."""
    monkeypatch.setattr("lms.lti.PLATFORM_TIMEOUT_S", 0.5)
    examiner, attempt = taken
    _mark(examiner, attempt, 1)
    released = examiner.post(f"/api/quizzes/{lti.quiz.pk}/release/", {}, format="json")
    assert released.status_code == 200
    lti.grades.hang_s = 3.0
    [sync] = LtiScoreSync.objects.all()
    with pytest.raises(ScoreNotSent, match="timed out"):  # the client gave up, not the platform
        score_publish(sync_id=sync.pk, now=timezone.now())
    sync.refresh_from_db()
    assert sync.status == SyncStatus.FAILED


def test_a_release_at_a_students_later_close_sends_the_scores_graded_before_it(lti: Lti) -> None:
    """Under "after close" nothing is released until the last student's own close (two days
    after the quiz's here): the scores graded before are sent by the sweep after it."""
    lti.quiz.release_policy = ReleasePolicy.AFTER_CLOSE
    lti.quiz.closes_at = timezone.now() + timedelta(hours=1)
    lti.quiz.save()
    late_close = lti.quiz.closes_at + timedelta(days=2)
    QuizAccessOverride.objects.create(quiz=lti.quiz, user=new_user(), closes_at=late_close)
    _true_false_taken(lti)
    assert _publish_pending() == ["pending"]
    [sync] = LtiScoreSync.objects.all()
    assert score_syncs_unsent(now=late_close - timedelta(minutes=1)) == []  # not released yet
    assert score_syncs_unsent(now=late_close + timedelta(minutes=1)) == [sync.pk]
    assert score_publish(sync_id=sync.pk, now=late_close + timedelta(minutes=1)) == "sent"


def test_a_quiz_switched_to_immediately_sends_the_scores_graded_before(lti: Lti) -> None:
    lti.quiz.release_policy = ReleasePolicy.MANUAL
    lti.quiz.save()
    _true_false_taken(lti)
    assert _publish_pending() == ["pending"]
    [sync] = LtiScoreSync.objects.all()
    later = timezone.now() + timedelta(days=2)
    assert score_syncs_unsent(now=later) == []  # manual and unreleased: left alone
    lti.quiz.release_policy = ReleasePolicy.IMMEDIATELY
    lti.quiz.save()
    assert score_syncs_unsent(now=later) == [sync.pk]
    assert score_publish(sync_id=sync.pk, now=later) == "sent"


def test_the_sweep_asks_only_about_quizzes_with_scores_waiting(
    db: None, django_assert_max_num_queries: Any
) -> None:
    for index in range(30):  # no LMS line item, no score rows
        new_quiz(
            title=f"Quiz {index}",
            release_policy=ReleasePolicy.AFTER_CLOSE,
            closes_at=timezone.now() - timedelta(hours=1),
        )
    with django_assert_max_num_queries(3):
        assert score_syncs_unsent(now=timezone.now()) == []


def test_a_student_the_platform_never_sent_is_failed_once_not_tried_at_every_sweep(
    lti: Lti, taken: tuple[APIClient, int]
) -> None:
    examiner, attempt = taken
    _mark(examiner, attempt, 1)
    ExternalIdentity.objects.all().delete()  # as a student who signed in on the site
    assert (
        examiner.post(f"/api/quizzes/{lti.quiz.pk}/release/", {}, format="json").status_code == 200
    )
    [sync] = LtiScoreSync.objects.all()
    assert score_publish(sync_id=sync.pk, now=timezone.now()) == "failed"
    sync.refresh_from_db()
    assert "never come from this platform" in sync.last_error
    assert score_syncs_unsent(now=timezone.now() + timedelta(days=1)) == []


@pytest.mark.parametrize(
    "answer", [{"error": "invalid_client"}, ["a token"], {"access_token": 7}], ids=str
)
def test_a_token_endpoint_answering_without_a_token_fails_the_send_on_its_row(
    lti: Lti, taken: tuple[APIClient, int], answer: Any
) -> None:
    examiner = _marked_and_released(lti, taken, 2)
    lti.grades.token_answer = answer
    _, row = _send_fails(lti, examiner, "could not be read")
    assert (row["status"], row["tries"]) == ("failed", 1)
    assert "token" in row["last_error"]
    assert lti.grades.scores == []

"""An examiner who is also a student of the course (a teaching assistant taking the quiz)
tries to mark, moderate, examine or regrade their own answers."""

from typing import Any

import pytest
from django.utils import timezone

from grading.models import Attempt, Response
from grading.models.marking import Mark, ScoreChange
from grading.models.regrade import RegradeRequest, RegradeRequestStatus
from grading.models.viva_sessions import VivaSession
from quizbank.models import CourseMembership, ReleasePolicy, Role
from tests.grading.content import NUMERIC, VIVA_TWO_CRITERIA
from tests.grading.factories import Staff, api_as, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


def _examiner_takes_the_quiz(*content: dict[str, Any]) -> tuple[Staff, Attempt]:
    staff, _ = staffed_quiz(*content)
    CourseMembership.objects.create(course=staff.course, user=staff.examiner, role=Role.STUDENT)
    return staff, submitted_attempt(staff.quiz, staff.examiner, {0: {"text": "Mine."}})


def _refused(reply: Any) -> None:
    assert reply.status_code == 403, reply.content
    assert reply.json()["error"]["code"] == "own_answer"


def test_an_examiner_cannot_mark_their_own_viva_answer() -> None:
    staff, attempt = _examiner_takes_the_quiz(VIVA_TWO_CRITERIA)
    response = attempt.responses.get()
    url = f"/api/marking/responses/{response.pk}/marks/"
    _refused(api_as(staff.examiner).post(url, {"levels": [2, 2]}, format="json"))
    assert not Mark.objects.exists()
    assert api_as(staff.second).post(url, {"levels": [1, 1]}, format="json").status_code == 201


def test_an_examiner_cannot_moderate_their_own_viva_answer() -> None:
    staff, attempt = _examiner_takes_the_quiz(VIVA_TWO_CRITERIA)
    response: Response = attempt.responses.get()
    url = f"/api/marking/responses/{response.pk}/"
    api_as(staff.second).post(f"{url}second-mark/")
    api_as(staff.second).post(f"{url}marks/", {"levels": [0, 0]}, format="json")
    api_as(staff.moderator).post(f"{url}marks/", {"levels": [3, 3]}, format="json")
    reply = api_as(staff.examiner).post(f"{url}moderation/", {"levels": [3, 3]}, format="json")
    _refused(reply)
    assert not Mark.objects.filter(marker=staff.examiner).exists()


def test_an_examiner_cannot_run_a_live_viva_of_themselves() -> None:
    staff, _ = staffed_quiz(VIVA_TWO_CRITERIA)
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    CourseMembership.objects.create(course=staff.course, user=staff.examiner, role=Role.STUDENT)
    body = {"quiz": staff.quiz.pk, "student": staff.examiner.pk}
    _refused(api_as(staff.examiner).post("/api/viva-sessions/", body, format="json"))
    assert not VivaSession.objects.exists()
    assert not Attempt.objects.exists()


def test_an_examiner_cannot_accept_their_own_regrade_request() -> None:
    staff, _ = staffed_quiz(NUMERIC, points="4")
    staff.quiz.released_at = timezone.now()
    staff.quiz.save()
    CourseMembership.objects.create(course=staff.course, user=staff.examiner, role=Role.STUDENT)
    attempt = submitted_attempt(staff.quiz, staff.examiner, {0: {"value": 12}})
    asked = f"/api/attempts/{attempt.pk}/responses/0/regrade-requests/"
    made = api_as(staff.examiner).post(asked, {"reason": "Please"}, format="json")
    assert made.status_code == 201, made.content
    answer = f"/api/regrade-requests/{made.json()['id']}/answer/"
    body = {"decision": "accept", "reply": "Fair.", "points": "4"}
    _refused(api_as(staff.examiner).post(answer, body, format="json"))
    assert RegradeRequest.objects.get().status == RegradeRequestStatus.OPEN
    assert not ScoreChange.objects.exists()
    assert api_as(staff.second).post(answer, body, format="json").status_code == 200


def test_examiners_of_another_course_and_students_can_neither_mark_nor_release() -> None:
    staff, _ = staffed_quiz(VIVA_TWO_CRITERIA)
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "Mine."}})
    response = attempt.responses.get()
    url = f"/api/marking/responses/{response.pk}/"
    for intruder, status in ((staff.outsider, 404), (staff.student, 403)):
        client = api_as(intruder)
        replies = [
            client.get(url),
            client.post(f"{url}marks/", {"levels": [2, 2]}, format="json"),
            client.post(f"{url}moderation/", {"levels": [2, 2]}, format="json"),
            client.post(f"{url}second-mark/"),
            client.get(f"{url}history/"),
            client.post(f"/api/quizzes/{staff.quiz.pk}/release/", {}, format="json"),
        ]
        assert [r.status_code for r in replies] == [status] * len(replies), intruder
    assert not Mark.objects.exists()
    staff.quiz.refresh_from_db()
    assert staff.quiz.released_at is None


def test_an_examiner_cannot_change_a_colleagues_mark_and_a_change_after_release_is_logged() -> None:
    staff, _ = staffed_quiz(VIVA_TWO_CRITERIA)
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "Mine."}})
    response = attempt.responses.get()
    made = api_as(staff.examiner).post(
        f"/api/marking/responses/{response.pk}/marks/", {"levels": [1, 1]}, format="json"
    )
    mark_url = f"/api/marking/marks/{made.json()['id']}/"
    stolen = api_as(staff.second).put(mark_url, {"levels": [2, 2]}, format="json")
    assert (stolen.status_code, stolen.json()["error"]["code"]) == (403, "not_your_mark")
    assert (
        api_as(staff.outsider).put(mark_url, {"levels": [2, 2]}, format="json").status_code == 404
    )
    assert api_as(staff.examiner).post(f"/api/quizzes/{staff.quiz.pk}/release/").status_code == 200
    changed = api_as(staff.examiner).put(
        mark_url, {"levels": [2, 2], "reason": "Second look"}, format="json"
    )
    assert changed.status_code == 200, changed.content
    history = api_as(staff.second).get(f"/api/marking/responses/{response.pk}/history/").json()
    assert [(c["before"], c["after"], c["after_release"]) for c in history["score_changes"]] == [
        (None, 0.5, False),
        (0.5, 1.0, True),
    ]

"""The examiner's marking flow through the API: mark, blind second mark, flag, moderate."""

from typing import Any

import pytest
from django.contrib.auth.models import User

from grading.models import Attempt, AttemptStatus, Response, ResponseStatus
from grading.models.marking import MarkChange, QuizMarkingPolicy, ScoreChange
from tests.grading.content import VIVA_TWO_CRITERIA
from tests.grading.factories import Staff, api_as, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup() -> tuple[Staff, Response]:
    staff, _ = staffed_quiz(VIVA_TWO_CRITERIA)
    attempt = submitted_attempt(staff.quiz, staff.student, {0: {"text": "It sums."}})
    return staff, attempt.responses.get()


def _mark(user: User, response: Response, levels: list[int], **extra: Any) -> Any:
    body = {"levels": levels, **extra}
    return api_as(user).post(f"/api/marking/responses/{response.pk}/marks/", body, format="json")


def test_the_examiner_sees_answer_model_answer_guidance_and_rubric(
    setup: tuple[Staff, Response],
) -> None:
    staff, response = setup
    body = api_as(staff.examiner).get(f"/api/marking/responses/{response.pk}/").json()
    assert body["answer"] == {"text": "It sums."}
    assert body["model_answer"] == "MODEL-ANSWER-SECRET"
    assert body["guidance"] == "GUIDANCE-SECRET"
    assert [c["criterion"] for c in body["rubric"]] == ["Mechanism", "Practice"]
    assert body["marking"]["status"] == "unmarked"


def test_a_single_mark_becomes_the_score_and_grades_the_attempt(
    setup: tuple[Staff, Response],
) -> None:
    staff, response = setup
    reply = _mark(staff.examiner, response, [2, 1], comment="Good on mechanism.")
    assert reply.status_code == 201, reply.json()
    assert reply.json()["score"] == pytest.approx(4 / 6)
    response.refresh_from_db()
    assert response.status == ResponseStatus.GRADED
    assert response.score == pytest.approx(4 / 6)
    attempt = Attempt.objects.get(pk=response.attempt_id)
    assert attempt.status == AttemptStatus.GRADED
    assert float(attempt.score or 0) == pytest.approx(4.0, abs=0.001)
    assert response.feedback["marks"][0]["rubric"][1]["level"] == "Partial"


def test_an_adjustment_needs_a_reason(setup: tuple[Staff, Response]) -> None:
    staff, response = setup
    reply = _mark(staff.examiner, response, [1, 1], adjustment=1)
    assert reply.status_code == 400
    assert reply.json()["error"]["code"] == "invalid_mark"
    assert "adjustment_reason" in reply.json()["error"]["fields"]
    ok = _mark(staff.examiner, response, [1, 1], adjustment=1, adjustment_reason="Nice example")
    assert ok.json()["score"] == pytest.approx(4 / 6)


@pytest.mark.parametrize("adjustment", [1e-7, 5e-324, 0.125])
def test_an_adjustment_finer_than_hundredths_is_refused(
    setup: tuple[Staff, Response], adjustment: float
) -> None:
    staff, response = setup
    reply = _mark(staff.examiner, response, [1, 1], adjustment=adjustment, adjustment_reason="x")
    assert reply.status_code == 400
    assert "hundredths" in str(reply.json()["error"]["fields"]["adjustment"])


def test_a_level_outside_the_rubric_is_refused_with_its_field(
    setup: tuple[Staff, Response],
) -> None:
    staff, response = setup
    reply = _mark(staff.examiner, response, [3, 0])
    assert reply.status_code == 400
    assert "levels[0]" in reply.json()["error"]["fields"]


def test_the_second_marker_marks_blind_and_close_marks_are_averaged(
    setup: tuple[Staff, Response],
) -> None:
    staff, response = setup
    QuizMarkingPolicy.objects.create(quiz=staff.quiz, double_marking=True)
    _mark(staff.examiner, response, [2, 2])  # 6/6
    view = api_as(staff.second).get(f"/api/marking/responses/{response.pk}/").json()
    assert view["marks_hidden"] is True
    assert view["marks"] == []
    assert view["marking"]["status"] == "awaiting_second"
    history = api_as(staff.second).get(f"/api/marking/responses/{response.pk}/history/").json()
    assert history["mark_changes"] == []
    _mark(staff.second, response, [2, 1])  # 4/6: gap 1/3 > 0.2
    response.refresh_from_db()
    assert response.score is None
    queue = api_as(staff.moderator).get("/api/marking/queue/", {"flagged": "true"}).json()
    assert [row["id"] for row in queue["results"]] == [response.pk]


def test_marks_within_the_threshold_give_their_mean(setup: tuple[Staff, Response]) -> None:
    staff, response = setup
    QuizMarkingPolicy.objects.create(
        quiz=staff.quiz, double_marking=True, disagreement_threshold=0.4
    )
    _mark(staff.examiner, response, [2, 2])
    _mark(staff.second, response, [2, 1])
    response.refresh_from_db()
    assert response.score == pytest.approx((1 + 4 / 6) / 2)


def test_the_moderators_mark_is_final_and_every_change_is_logged(
    setup: tuple[Staff, Response],
) -> None:
    staff, response = setup
    QuizMarkingPolicy.objects.create(quiz=staff.quiz, double_marking=True)
    first = _mark(staff.examiner, response, [2, 2]).json()
    _mark(staff.second, response, [0, 1])
    url = f"/api/marking/responses/{response.pk}/moderation/"
    refused = api_as(staff.examiner).post(url, {"levels": [1, 1]}, format="json")
    assert refused.json()["error"]["code"] == "same_marker"
    done = api_as(staff.moderator).post(url, {"levels": [1, 2]}, format="json")
    assert done.status_code == 201
    response.refresh_from_db()
    assert response.score == pytest.approx(5 / 6)
    changed = api_as(staff.examiner).put(
        f"/api/marking/marks/{first['id']}/", {"levels": [1, 2]}, format="json"
    )
    assert changed.status_code == 200
    response.refresh_from_db()
    assert response.score == pytest.approx(5 / 6)  # the moderator's mark still decides
    log = list(MarkChange.objects.filter(response=response).order_by("pk"))
    assert [c.after["role"] for c in log] == ["first", "second", "moderator", "first"]
    assert log[-1].before is not None
    assert log[-1].before["levels"] == [2, 2]
    assert log[-1].actor == staff.examiner
    assert list(ScoreChange.objects.filter(response=response).values_list("after", flat=True)) == [
        pytest.approx(5 / 6)
    ]


def test_log_rows_cannot_be_changed_or_deleted(setup: tuple[Staff, Response]) -> None:
    staff, response = setup
    _mark(staff.examiner, response, [1, 1])
    row = MarkChange.objects.get()
    with pytest.raises(ValueError, match="append-only"):
        row.save()
    with pytest.raises(ValueError, match="append-only"):
        row.delete()


def test_only_the_marker_may_change_a_mark(setup: tuple[Staff, Response]) -> None:
    staff, response = setup
    mark = _mark(staff.examiner, response, [1, 1]).json()
    reply = api_as(staff.second).put(
        f"/api/marking/marks/{mark['id']}/", {"levels": [0, 0]}, format="json"
    )
    assert reply.status_code == 403
    assert reply.json()["error"]["code"] == "not_your_mark"


def test_an_examiner_of_another_course_gets_404(setup: tuple[Staff, Response]) -> None:
    staff, response = setup
    assert api_as(staff.outsider).get(f"/api/marking/responses/{response.pk}/").status_code == 404
    assert _mark(staff.outsider, response, [1, 1]).status_code == 404
    assert api_as(staff.outsider).get("/api/marking/queue/").json()["results"] == []


def test_a_mark_given_with_a_second_mark_request_is_never_final_on_its_own(
    setup: tuple[Staff, Response],
) -> None:
    # Marking and then asking in a second call left the mark final in between: a student
    # shown results as soon as they are graded saw it, and later read it was their mark.
    staff, response = setup
    reply = _mark(staff.examiner, response, [2, 2], ask_second_mark=True)
    assert reply.status_code == 201, reply.json()
    response.refresh_from_db()
    assert response.score is None
    assert response.marking.second_requested
    assert not ScoreChange.objects.filter(response=response).exists()

    second = _mark(staff.second, response, [1, 2])

    assert second.status_code == 201, second.json()
    response.refresh_from_db()
    changes = ScoreChange.objects.filter(response=response)
    assert response.score == pytest.approx((6 / 6 + 5 / 6) / 2)
    assert [(c.before, c.after) for c in changes] == [(None, response.score)]


def test_a_changed_mark_may_ask_for_a_second_mark(setup: tuple[Staff, Response]) -> None:
    staff, response = setup
    first = _mark(staff.examiner, response, [2, 2]).json()
    url = f"/api/marking/marks/{first['id']}/"
    asked = api_as(staff.examiner).put(url, {"levels": [2, 2], "ask_second_mark": True})
    assert asked.status_code == 200, asked.json()
    response.refresh_from_db()
    assert response.marking.second_requested
    assert response.score is None  # waits for the second mark now


def test_a_moderator_cannot_ask_for_a_second_mark(setup: tuple[Staff, Response]) -> None:
    staff, response = setup
    QuizMarkingPolicy.objects.create(quiz=staff.quiz, double_marking=True)
    _mark(staff.examiner, response, [2, 2])
    _mark(staff.second, response, [0, 0])
    url = f"/api/marking/responses/{response.pk}/moderation/"
    body = {"levels": [1, 1], "ask_second_mark": True}

    refused = api_as(staff.moderator).post(url, body, format="json")

    assert refused.status_code == 400
    assert "ask_second_mark" in refused.json()["error"]["fields"]
    assert not response.marks.filter(role="moderator").exists()


def test_ask_second_mark_takes_only_a_boolean(setup: tuple[Staff, Response]) -> None:
    staff, response = setup
    reply = _mark(staff.examiner, response, [2, 2], ask_second_mark="yes")
    assert reply.status_code == 400
    assert "ask_second_mark" in reply.json()["error"]["fields"]
    assert not response.marks.exists()

"""A mark changed after release is logged and shown to the student as an update."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine

from grading.models import Attempt, Response
from grading.models.marking import Mark, MarkChange, ScoreChange
from quizbank.models import ReleasePolicy
from tests.grading.content import SINGLE, VIVA
from tests.grading.factories import Staff, api_as, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def released() -> tuple[Staff, Attempt, Response]:
    """The viva (4 points) marked full at T0 + 1 min, released at T0 + 2 min."""
    staff, _ = staffed_quiz(SINGLE, VIVA, points="4")
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    with time_machine.travel(T0, tick=False) as clock:
        attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "t"}})
        viva = attempt.responses.get(position=1)
        clock.move_to(T0 + timedelta(minutes=1))
        _post_mark(staff, viva, [2])
        clock.move_to(T0 + timedelta(minutes=2))
        assert (
            api_as(staff.examiner).post(f"/api/quizzes/{staff.quiz.pk}/release/").status_code == 200
        )
    return staff, attempt, viva


def _post_mark(staff: Staff, viva: Response, levels: list[int]) -> None:
    reply = api_as(staff.examiner).post(
        f"/api/marking/responses/{viva.pk}/marks/", {"levels": levels}, format="json"
    )
    assert reply.status_code == 201, reply.content


def _change(staff: Staff, viva: Response, levels: list[int], reason: str, at: datetime) -> Any:
    mark = Mark.objects.get(response=viva)
    with time_machine.travel(at, tick=False):
        body = {"levels": levels, "reason": reason}
        return api_as(staff.examiner).put(f"/api/marking/marks/{mark.pk}/", body, format="json")


def _result(staff: Staff, attempt: Attempt) -> dict[str, Any]:
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        body: dict[str, Any] = (
            api_as(staff.student).get(f"/api/attempts/{attempt.pk}/result/").json()
        )
    return body


def test_a_released_result_that_never_changed_is_not_an_update(released: Any) -> None:
    staff, attempt, _ = released
    result = _result(staff, attempt)
    assert (result["score"], result["updated_at"]) == ("8.000", None)
    assert result["questions"][1]["previous_points_awarded"] is None


def test_a_mark_changed_after_release_is_shown_as_an_update_with_the_previous_one(
    released: Any,
) -> None:
    staff, attempt, viva = released
    t1, t2 = T0 + timedelta(minutes=10), T0 + timedelta(minutes=20)
    assert _change(staff, viva, [1], "misread the second half", t1).status_code == 200
    result = _result(staff, attempt)
    answer = result["questions"][1]
    assert (answer["points_awarded"], answer["previous_points_awarded"]) == ("2.000", "4.000")
    assert (answer["score"], answer["previous_score"]) == (0.5, 1.0)
    assert answer["updated_at"] == result["updated_at"] == "2026-03-02T09:10:00Z"
    assert result["score"] == "6.000"

    # 4 -> 2 -> 4: the student sees the current mark, when it changed and the one before.
    assert _change(staff, viva, [2], "second look: it is all there", t2).status_code == 200
    answer = _result(staff, attempt)["questions"][1]
    assert (answer["points_awarded"], answer["previous_points_awarded"]) == ("4.000", "2.000")
    assert answer["updated_at"] == "2026-03-02T09:20:00Z"


def test_the_examiner_history_has_who_when_old_new_and_why(released: Any) -> None:
    staff, _, viva = released
    _change(staff, viva, [1], "misread the second half", T0 + timedelta(minutes=10))
    history = api_as(staff.examiner).get(f"/api/marking/responses/{viva.pk}/history/").json()
    scores = [
        (c["before"], c["after"], c["after_release"], c["actor"]) for c in history["score_changes"]
    ]
    assert scores == [
        (None, 1.0, False, staff.examiner.username),
        (1.0, 0.5, True, staff.examiner.username),
    ]
    assert history["score_changes"][1]["reason"] == "marking: final; misread the second half"
    assert history["score_changes"][1]["created_at"] == "2026-03-02T09:10:00Z"
    marks = [(c["before"] or {}).get("levels") for c in history["mark_changes"]]
    assert marks == [None, [2]]
    assert [c["reason"] for c in history["mark_changes"]] == ["", "misread the second half"]


def test_saving_the_same_mark_again_records_nothing(released: Any) -> None:
    staff, _, viva = released
    before = (MarkChange.objects.count(), ScoreChange.objects.count())
    graded_at = Response.objects.get(pk=viva.pk).graded_at
    reply = _change(staff, viva, [2], "", T0 + timedelta(minutes=30))
    assert reply.status_code == 200
    assert (MarkChange.objects.count(), ScoreChange.objects.count()) == before
    assert Response.objects.get(pk=viva.pk).graded_at == graded_at
    assert Mark.objects.get(response=viva).updated_at == T0 + timedelta(minutes=1)


def test_the_first_mark_of_an_answer_released_as_pending_is_not_an_update() -> None:
    staff, _ = staffed_quiz(SINGLE, VIVA, points="4")
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.save()
    with time_machine.travel(T0, tick=False) as clock:
        attempt = submitted_attempt(staff.quiz, staff.student, {0: {"choice": 0}, 1: {"text": "t"}})
        viva = attempt.responses.get(position=1)
        override = {"responses": [viva.pk], "reason": "marker away"}
        url = f"/api/quizzes/{staff.quiz.pk}/release/"
        reply = api_as(staff.examiner).post(url, {"override": override}, format="json")
        assert reply.status_code == 200
        clock.move_to(T0 + timedelta(minutes=5))
        _post_mark(staff, viva, [1])
    answer = _result(staff, attempt)["questions"][1]
    assert (answer["points_awarded"], answer["updated_at"], answer["pending"]) == (
        "2.000",
        None,
        False,
    )


def test_changes_read_in_the_order_written_when_a_later_one_took_an_earlier_time(
    released: Any,
) -> None:
    """Two examiners saving at once each take the time before the answer's lock: the one
    written second may carry the earlier time. The last change written is the mark that stands."""
    staff, attempt, viva = released
    assert _change(staff, viva, [1], "first save", T0 + timedelta(minutes=20)).status_code == 200
    assert _change(staff, viva, [0], "second save", T0 + timedelta(minutes=19)).status_code == 200
    history = api_as(staff.examiner).get(f"/api/marking/responses/{viva.pk}/history/").json()
    assert history["mark_changes"][-1]["reason"] == "second save"
    assert history["score_changes"][-1]["after"] == 0.0
    answer = _result(staff, attempt)["questions"][1]
    assert (answer["score"], answer["previous_score"]) == (0.0, 0.5)

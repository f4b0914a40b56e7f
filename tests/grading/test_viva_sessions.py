"""A live viva from start to a graded attempt, through the API."""

from typing import Any

import pytest
from rest_framework.test import APIClient

from grading.models import Attempt, AttemptStatus
from grading.selectors import quiz_grade
from quizbank.models import QuizSlot, ReleasePolicy
from tests.grading.content import VIVA_TWO_CRITERIA
from tests.grading.factories import (
    Staff,
    api_as,
    browser_as,
    new_course,
    new_topic,
    question,
    staffed_quiz,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff() -> Staff:
    made, _ = staffed_quiz(VIVA_TWO_CRITERIA)
    made.quiz.release_policy = ReleasePolicy.MANUAL
    made.quiz.save()
    for title in ("Leaf tensors", "Broadcasting"):
        question(made.course, {**VIVA_TWO_CRITERIA, "title": title, "tags": ["oral"]}, points="6")
    QuizSlot.objects.create(quiz=made.quiz, position=1, pool_tag="oral", draw_count=2)
    return made


def _start(staff: Staff) -> Any:
    body = {"quiz": staff.quiz.pk, "student": staff.student.pk}
    return api_as(staff.examiner).post("/api/viva-sessions/", body, format="json")


def _drawn_put_back_and_drawn_again(staff: Staff) -> tuple[APIClient, str, Any, Any]:
    """A session whose first question was put back (by id) and another drawn in its place:
    the examiner's client, the session's URL, and the two drawn questions."""
    client = api_as(staff.examiner)
    base = f"/api/viva-sessions/{_start(staff).json()['id']}"
    first = client.post(f"{base}/draws/", {"tag": "oral"}, format="json").json()
    assert client.delete(f"{base}/questions/0/?id={first['id']}").status_code == 200
    second = client.post(f"{base}/draws/", {"tag": "oral"}, format="json").json()
    return client, base, first, second


def test_a_live_viva_draws_without_repeats_and_ends_as_a_graded_attempt(staff: Staff) -> None:
    client = api_as(staff.examiner)
    session = _start(staff).json()
    base = f"/api/viva-sessions/{session['id']}"
    titles = []
    for position, levels in enumerate(([2, 2], [1, 1])):
        drawn = client.post(f"{base}/draws/", {"tag": "oral"}, format="json")
        assert drawn.status_code == 201, drawn.json()
        titles.append(drawn.json()["question"]["title"])
        assert drawn.json()["model_answer"] == "MODEL-ANSWER-SECRET"
        record = {"notes": f"notes {position}", "levels": levels, "comment": "ok"}
        assert (
            client.post(f"{base}/questions/{position}/", record, format="json").status_code == 200
        )
    assert sorted(titles) == ["Broadcasting", "Leaf tensors"]
    exhausted = client.post(f"{base}/draws/", {"tag": "oral"}, format="json")
    assert exhausted.json()["error"]["code"] == "pool_exhausted"
    ended = client.post(f"{base}/end/").json()
    assert ended["status"] == "ended"
    attempt = Attempt.objects.get(pk=session["attempt"])
    assert attempt.status == AttemptStatus.GRADED
    assert float(attempt.score or 0) == pytest.approx(6 + 3)
    assert attempt.responses.get(position=0).answer == {"text": "notes 0"}
    assert quiz_grade(staff.quiz, staff.student.pk) == attempt.score


def test_ending_with_an_unmarked_question_is_refused(staff: Staff) -> None:
    client = api_as(staff.examiner)
    session = _start(staff).json()
    client.post(f"/api/viva-sessions/{session['id']}/draws/", {}, format="json")
    reply = client.post(f"/api/viva-sessions/{session['id']}/end/")
    assert reply.status_code == 409
    assert reply.json()["error"]["fields"]["positions"] == ["0"]


def test_a_question_put_back_unasked_leaves_the_viva_and_is_not_drawn_again(
    staff: Staff,
) -> None:
    client = api_as(staff.examiner)
    session = _start(staff).json()
    base = f"/api/viva-sessions/{session['id']}"
    first = client.post(f"{base}/draws/", {"tag": "oral"}, format="json").json()
    put_back = client.delete(f"{base}/questions/0/")
    assert put_back.status_code == 200, put_back.json()
    assert put_back.json()["questions"] == []
    second = client.post(f"{base}/draws/", {"tag": "oral"}, format="json").json()
    assert second["question"]["title"] != first["question"]["title"]
    assert second["position"] == 0
    exhausted = client.post(f"{base}/draws/", {"tag": "oral"}, format="json")
    assert exhausted.json()["error"]["code"] == "pool_exhausted"  # the one put back stays out
    marked = client.post(f"{base}/questions/0/", {"levels": [1, 1]}, format="json")
    assert marked.status_code == 200
    ended = client.post(f"{base}/end/").json()
    assert ended["status"] == "ended"
    attempt = Attempt.objects.get(pk=session["attempt"])
    assert attempt.responses.count() == 1
    assert float(attempt.max_score or 0) == 6


def test_a_stale_put_back_names_its_question_and_leaves_a_newer_one_drawn(
    staff: Staff,
) -> None:
    client, base, first, second = _drawn_put_back_and_drawn_again(staff)
    assert second["position"] == 0
    stale = client.delete(f"{base}/questions/0/?id={first['id']}")  # another tab, for the first
    assert stale.status_code == 409
    error = stale.json()["error"]
    assert error["code"] == "viva_question_changed"
    assert "The question at position 0 is no longer the one meant" in error["message"]
    assert (
        Attempt.objects.get(viva_session__pk=base.rsplit("/", 1)[1]).responses.get().pk
        == second["id"]
    )
    assert client.delete(f"{base}/questions/0/?id=x").status_code == 400


def test_only_the_last_unmarked_question_can_be_put_back(staff: Staff) -> None:
    client = api_as(staff.examiner)
    session = _start(staff).json()
    base = f"/api/viva-sessions/{session['id']}"
    client.post(f"{base}/draws/", {"tag": "oral"}, format="json")
    client.post(f"{base}/draws/", {"tag": "oral"}, format="json")
    earlier = client.delete(f"{base}/questions/0/")
    assert earlier.status_code == 409
    assert "Only the last question drawn (question 2)" in earlier.json()["error"]["message"]
    assert client.delete(f"{base}/questions/5/").status_code == 404
    client.post(f"{base}/questions/1/", {"levels": [1, 1]}, format="json")
    marked = client.delete(f"{base}/questions/1/")
    assert marked.status_code == 409
    assert marked.json()["error"]["code"] == "viva_question_kept"
    assert Attempt.objects.get(pk=session["attempt"]).responses.count() == 2


def test_the_student_can_neither_save_nor_submit_over_a_live_viva(staff: Staff) -> None:
    session = _start(staff).json()
    api_as(staff.examiner).post(f"/api/viva-sessions/{session['id']}/draws/", {}, format="json")
    student = api_as(staff.student)
    saved = student.put(
        f"/api/attempts/{session['attempt']}/responses/0/",
        {"answer": {"text": "mine"}, "version": 0},
        format="json",
    )
    assert saved.status_code == 409
    assert student.get(f"/api/viva-sessions/{session['id']}/").status_code == 403


def test_a_session_needs_a_student_of_the_course_and_a_non_immediate_release(staff: Staff) -> None:
    body = {"quiz": staff.quiz.pk, "student": staff.outsider.pk}
    reply = api_as(staff.examiner).post("/api/viva-sessions/", body, format="json")
    # Not a student, unknown or inactive: one answer, which names no one.
    assert reply.status_code == 404
    assert staff.outsider.username not in reply.content.decode()
    unknown = api_as(staff.examiner).post(
        "/api/viva-sessions/", {**body, "student": 999999}, format="json"
    )
    assert unknown.json()["error"]["code"] == reply.json()["error"]["code"]
    staff.quiz.release_policy = ReleasePolicy.IMMEDIATELY
    staff.quiz.save()
    assert _start(staff).json()["error"]["code"] == "viva_quiz_releases_immediately"


def test_an_examiner_of_another_course_cannot_see_or_start_sessions(staff: Staff) -> None:
    session, outsider = _start(staff).json(), api_as(staff.outsider)
    assert outsider.get(f"/api/viva-sessions/{session['id']}/").status_code == 404
    body = {"quiz": staff.quiz.pk, "student": staff.student.pk}
    assert outsider.post("/api/viva-sessions/", body, format="json").status_code == 404


def _run_session(staff: Staff, levels: list[int]) -> dict[str, Any]:
    client = api_as(staff.examiner)
    session = _start(staff).json()
    base = f"/api/viva-sessions/{session['id']}"
    assert client.post(f"{base}/draws/", {"tag": "oral"}, format="json").status_code == 201
    record = {"notes": "n", "levels": levels}
    assert client.post(f"{base}/questions/0/", record, format="json").status_code == 200
    assert client.post(f"{base}/end/").status_code == 200
    body: dict[str, Any] = session
    return body


def test_a_live_viva_counts_against_the_attempt_limit(staff: Staff) -> None:
    staff.quiz.attempts_allowed = 1
    staff.quiz.save()
    assert _start(staff).status_code == 201
    started = api_as(staff.student).post(f"/api/quizzes/{staff.quiz.pk}/attempts/")
    assert (started.status_code, started.json()["error"]["code"]) == (409, "no_attempts_left")
    assert started.json()["error"]["message"] == "The one attempt allowed has been used."
    again = _start(staff)
    assert (again.status_code, again.json()["error"]["code"]) == (409, "no_attempts_left")
    assert again.json()["error"]["fields"] == {"student": ["1 of 1 attempts used"]}
    assert Attempt.objects.filter(quiz=staff.quiz, user=staff.student).count() == 1


def test_a_live_viva_waits_for_a_release_even_on_an_already_released_quiz(staff: Staff) -> None:
    examiner, student = api_as(staff.examiner), api_as(staff.student)
    release = f"/api/quizzes/{staff.quiz.pk}/release/"
    assert examiner.post(release).status_code == 200  # released before the viva
    session = _run_session(staff, [2, 2])
    result = f"/api/attempts/{session['attempt']}/result/"
    hidden = student.get(result).json()
    assert (hidden["results_visible"], hidden["score"]) == (False, None)
    assert hidden["questions"][0]["score"] is None
    grade = student.get(f"/api/quizzes/{staff.quiz.pk}/grade/").json()
    assert (grade["released"], grade["grade"], grade["pending"]) == (True, None, False)

    covered = examiner.post(release).json()["release"]["attempts"]
    assert covered == [session["attempt"]]
    shown = student.get(result).json()
    assert (shown["results_visible"], shown["score"]) == (True, "6.000")
    assert student.get(f"/api/quizzes/{staff.quiz.pk}/grade/").json()["grade"] == "6.000"


def test_a_release_does_not_cover_a_viva_still_going_on(staff: Staff) -> None:
    session = _start(staff).json()
    client = api_as(staff.examiner)
    client.post(f"/api/viva-sessions/{session['id']}/draws/", {}, format="json")
    released = client.post(f"/api/quizzes/{staff.quiz.pk}/release/")
    assert (released.status_code, released.json()["release"]["attempts"]) == (200, [])
    assert Attempt.objects.get(pk=session["attempt"]).released_at is None


def test_a_quiz_of_oral_questions_only_is_started_by_an_examiner_not_online() -> None:
    """Started online, the student would use up the one attempt and see no answer box."""
    oral = {**VIVA_TWO_CRITERIA, "mode": "oral"}
    staff, _ = staffed_quiz(oral)
    staff.quiz.release_policy = ReleasePolicy.MANUAL
    staff.quiz.attempts_allowed = 1
    staff.quiz.save()
    dashboard = browser_as(staff.student).get("/dashboard/").content.decode()
    assert "A live viva: your examiner starts it with you" in dashboard
    assert f'Start<span class="visually-hidden"> {staff.quiz.title}' not in dashboard
    refused = api_as(staff.student).post(f"/api/quizzes/{staff.quiz.pk}/attempts/")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "quiz_is_live_only"
    assert not Attempt.objects.exists()
    assert _start(staff).status_code == 201


def test_a_quiz_mixing_written_and_oral_questions_starts_online() -> None:
    staff, _ = staffed_quiz({**VIVA_TWO_CRITERIA, "mode": "oral"}, VIVA_TWO_CRITERIA)
    started = api_as(staff.student).post(f"/api/quizzes/{staff.quiz.pk}/attempts/")
    assert started.status_code == 201, started.content


def test_a_live_viva_asks_only_the_quizs_own_viva_questions(staff: Staff) -> None:
    """A viva question elsewhere in the course (an import, another quiz's) is never drawn
    while the quiz brings viva questions of its own; slot points apply."""
    question(staff.course, {**VIVA_TWO_CRITERIA, "title": "Not this quiz", "tags": ["x"]})
    QuizSlot.objects.filter(quiz=staff.quiz, position=1).update(points="2.5")
    client = api_as(staff.examiner)
    session = _start(staff).json()
    base = f"/api/viva-sessions/{session['id']}"
    drawn = [client.post(f"{base}/draws/", {}, format="json").json() for _ in range(3)]
    titles = {d["question"]["title"] for d in drawn}
    assert "Not this quiz" not in titles
    assert len(titles) == 3
    points = Attempt.objects.get(pk=session["attempt"]).responses.values_list(
        "question_version__content__title", "points"
    )
    assert {title: str(p) for title, p in points} == {
        "Why gradients accumulate": "6.00",
        "Leaf tensors": "2.50",
        "Broadcasting": "2.50",
    }
    exhausted = client.post(f"{base}/draws/", {}, format="json")
    assert exhausted.status_code == 409
    assert "No viva question of this quiz is left" in exhausted.json()["error"]["message"]


def test_a_quiz_without_viva_questions_draws_from_the_courses(staff: Staff) -> None:
    QuizSlot.objects.filter(quiz=staff.quiz).delete()
    client = api_as(staff.examiner)
    base = f"/api/viva-sessions/{_start(staff).json()['id']}"
    drawn = [client.post(f"{base}/draws/", {}, format="json") for _ in range(3)]
    assert [reply.status_code for reply in drawn] == [201, 201, 201]


def test_a_draw_from_a_topic_the_course_lacks_is_refused_as_such(staff: Staff) -> None:
    other_course_topic = new_topic(course=new_course())
    client = api_as(staff.examiner)
    base = f"/api/viva-sessions/{_start(staff).json()['id']}"
    for topic in (other_course_topic.pk, 2**62):
        reply = client.post(f"{base}/draws/", {"topic": topic}, format="json")
        assert reply.status_code == 400, reply.json()
        assert reply.json()["error"]["code"] == "no_such_topic"
        assert reply.json()["error"]["fields"] == {"topic": ["no such topic"]}
    assert Attempt.objects.get(viva_session__pk=base.rsplit("/", 1)[1]).responses.count() == 0


def test_notes_from_a_stale_tab_are_not_recorded_on_the_question_drawn_since(
    staff: Staff,
) -> None:
    client, base, first, second = _drawn_put_back_and_drawn_again(staff)
    stale = client.post(
        f"{base}/questions/0/", {"notes": "About the first.", "id": first["id"]}, format="json"
    )
    assert stale.status_code == 409
    assert "Nothing was recorded" in stale.json()["error"]["message"]
    answer = Attempt.objects.get(viva_session__pk=base.rsplit("/", 1)[1]).responses.get()
    assert answer.pk == second["id"]
    assert answer.answer in (None, {}, {"text": ""})
    meant = {"notes": "About the second.", "id": second["id"]}
    assert client.post(f"{base}/questions/0/", meant, format="json").status_code == 200


def test_a_viva_started_by_mistake_is_cancelled_and_the_attempt_given_back(staff: Staff) -> None:
    staff.quiz.attempts_allowed = 1
    staff.quiz.save()
    client, session = api_as(staff.examiner), _start(staff).json()
    base = f"/api/viva-sessions/{session['id']}"
    ended = client.post(f"{base}/end/")
    assert ended.status_code == 409
    assert "cancel the viva" in ended.json()["error"]["message"]
    drawn = client.post(f"{base}/draws/", {"tag": "oral"}, format="json").json()
    kept = client.delete(f"{base}/")
    assert (kept.status_code, kept.json()["error"]["code"]) == (409, "viva_question_kept")
    assert client.delete(f"{base}/questions/0/?id={drawn['id']}").status_code == 200
    assert api_as(staff.student).delete(f"{base}/").status_code == 403  # examiners only
    assert client.delete(f"{base}/").status_code == 204
    assert not Attempt.objects.filter(quiz=staff.quiz, user=staff.student).exists()
    assert client.get(f"{base}/").status_code == 404
    assert _start(staff).status_code == 201  # the one attempt is there again

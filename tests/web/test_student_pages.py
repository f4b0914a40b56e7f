"""The student's pages: anonymous users go to sign-in and come back, other users get 404,
refusals are messages, never 500s."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from grading.models import Attempt
from grading.services.attempts import attempt_start
from quizbank.models import CourseMembership, Role
from tests.api.helpers import save, start, submit
from tests.grading.content import CODE, NUMERIC
from tests.grading.factories import add_slots, member, new_course, new_quiz, new_user, question
from web.templatetags.pages import has_feedback, minutes, points

pytestmark = pytest.mark.django_db


def _attempt_and_users() -> tuple[int, Client, Client]:
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, question(course, NUMERIC))
    owner, other = member(course, Role.STUDENT), member(course, Role.STUDENT)
    attempt = attempt_start(quiz=quiz, user=owner, now=timezone.now())
    owner_client, other_client = Client(), Client()
    owner_client.force_login(owner)
    other_client.force_login(other)
    return attempt.pk, owner_client, other_client


def test_anonymous_users_are_sent_to_sign_in_and_back() -> None:
    reply = Client().get("/attempts/1/")

    assert reply.status_code == 302
    assert reply["Location"] == "/signin/?next=/attempts/1/"


def test_the_owner_sees_the_quiz_page_and_others_get_404() -> None:
    attempt, owner, other = _attempt_and_users()

    assert owner.get(f"/attempts/{attempt}/").status_code == 200
    assert other.get(f"/attempts/{attempt}/").status_code == 404
    assert other.get(f"/attempts/{attempt}/result/").status_code == 404
    assert owner.get("/attempts/99999999/").status_code == 404


def test_the_quiz_and_result_pages_are_never_kept_in_a_cache() -> None:
    # Back after submitting must ask the server, which sends a submitted attempt to its result.
    attempt, owner, _ = _attempt_and_users()
    for url in (f"/attempts/{attempt}/", f"/attempts/{attempt}/result/"):
        assert "no-store" in owner.get(url)["Cache-Control"]


def test_pages_to_read_answer_other_methods_with_405() -> None:
    attempt, owner, _ = _attempt_and_users()
    reads = ["/", "/dashboard/", f"/attempts/{attempt}/", f"/attempts/{attempt}/result/"]
    forms = ["/signin/", "/password/"]
    for url in reads + forms:
        assert owner.head(url).status_code in (200, 302), url
        for method in ("put", "patch", "delete"):
            assert getattr(owner, method)(url).status_code == 405, (method, url)
    for url in reads:
        assert owner.post(url).status_code == 405, url


def test_a_refused_start_is_a_message_on_the_dashboard() -> None:
    course = new_course()
    quiz = new_quiz(course=course, attempts_allowed=1)
    add_slots(quiz, question(course, NUMERIC))
    client = Client()
    client.force_login(member(course, Role.STUDENT))
    client.post(f"/quizzes/{quiz.pk}/start/")
    reply = client.post(f"/quizzes/{quiz.pk}/start/", follow=True)  # resumes the open one
    assert reply.status_code == 200

    other = new_quiz(course=new_course())
    assert client.post(f"/quizzes/{other.pk}/start/").status_code == 404
    assert client.get(f"/quizzes/{quiz.pk}/start/").status_code == 405


def test_a_code_run_job_is_readable_only_by_its_starter() -> None:
    _, owner, _ = _attempt_and_users()

    assert owner.get("/code-runs/run-not-mine/").status_code == 404
    assert Client().get("/code-runs/run-not-mine/").status_code in (401, 403)


@pytest.mark.usefixtures("celery_eager")
def test_run_answers_a_job_id_at_once_and_the_poll_gives_the_documented_output() -> None:
    _, _, other = _attempt_and_users()
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, question(course, CODE))
    student = member(course, Role.STUDENT)
    attempt = attempt_start(quiz=quiz, user=student, now=timezone.now())
    owner = Client()
    owner.force_login(student)
    body = {"code": "print(6 * 7)", "attempt": attempt.pk, "position": 0}
    started = owner.post("/code-runs/", body, content_type="application/json")
    assert started.status_code == 202
    assert set(started.json()) == {"job"}
    polled = owner.get(f"/code-runs/{started.json()['job']}/").json()
    assert (polled["finished"], polled["stdout"]) == (True, "42\n")
    documented = {"finished", "status", "exit_code", "stdout", "stderr", "duration_ms"}
    assert set(polled) == documented | {"truncated", "message"}
    assert other.get(f"/code-runs/{started.json()['job']}/").status_code == 404
    not_an_id = owner.get("/code-runs/not%20an%20id/")
    assert (not_an_id.status_code, not_an_id.json()["error"]["code"]) == (404, "not_found")
    refused = owner.post("/code-runs/", {"source": "1"}, content_type="application/json")
    assert refused.status_code == 400
    assert list(refused.json()["error"]["fields"]) == ["code"]


def test_the_sign_in_page_locks_after_too_many_failures() -> None:
    from django.core.cache import cache

    cache.clear()
    client = Client()
    for _ in range(10):
        assert client.post("/signin/", {"username": "sam", "password": "wrong"}).status_code == 200
    reply = client.post("/signin/", {"username": "sam", "password": "wrong"})

    assert reply.status_code == 429
    assert int(reply["Retry-After"]) > 0
    cache.clear()


def test_a_quiz_without_questions_is_not_offered_to_students() -> None:
    course = new_course()
    empty = new_quiz(course=course, title="Still being written")
    ready = new_quiz(course=course, title="Ready to take")
    add_slots(ready, question(course, NUMERIC))
    client = Client()
    client.force_login(member(course, Role.STUDENT))
    page = client.get("/dashboard/").content.decode()
    assert "Ready to take" in page
    assert empty.title not in page


@pytest.mark.parametrize(
    ("limit", "shown"),
    [
        (timedelta(minutes=45), "45 min"),
        (timedelta(hours=1), "1 h"),
        (timedelta(hours=1, minutes=30), "1 h 30 min"),
        (timedelta(seconds=20), "20 s"),
        (timedelta(minutes=2, seconds=30), "2 min 30 s"),
        (timedelta(seconds=0.2), "1 s"),
        (timedelta(0), "0 min"),
    ],
)
def test_time_limits_read_in_hours_and_minutes(limit: timedelta, shown: str) -> None:
    assert minutes(limit) == shown


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (Decimal("0.750"), "0.75"),
        (Decimal("13.000"), "13"),
        (Decimal("100"), "100"),
        (Decimal("10.2505"), "10.251"),
        (2.5, "2.5"),
        (None, ""),
        ("n/a", "n/a"),
    ],
)
def test_scores_read_without_trailing_zeros(value: object, shown: str) -> None:
    assert points(value) == shown


def test_feedback_with_nothing_to_show_gets_no_heading() -> None:
    assert not has_feedback({"answer": "", "choices": [], "general": ""})
    assert not has_feedback(None)
    assert has_feedback({"general": "See the lesson on leaves."})
    assert has_feedback({"cases": [{"name": "c1", "passed": True}]})


def test_a_wrong_access_code_is_said_beside_its_quiz() -> None:
    course = new_course()
    quiz = new_quiz(course=course, access_code="OWL-42")
    other = new_quiz(course=course)
    add_slots(quiz, question(course, NUMERIC))
    add_slots(other, question(course, NUMERIC))
    client = Client()
    client.force_login(member(course, Role.STUDENT))
    reply = client.post(f"/quizzes/{quiz.pk}/start/", {"access_code": "nope"})
    assert reply["Location"] == f"/dashboard/#quiz-{quiz.pk}"
    page = client.get(reply["Location"]).content.decode()
    row = page[page.index(f'id="quiz-{quiz.pk}"') :]
    row = row[: row.index("</tr>")]
    assert '<p class="field-error" role="alert">' in row
    others = page[page.index(f'id="quiz-{other.pk}"') :]
    assert "field-error" not in others[: others.index("</tr>")]


@pytest.mark.parametrize("target", ["/signin/", "/signin/?next=/signin/", "/signin/?x=1"])
def test_a_next_naming_the_sign_in_page_goes_to_the_dashboard_not_a_500(target: str) -> None:
    # Django's LoginView raised "Redirection loop for authenticated user" for a signed-in
    # visitor at /signin/?next=/signin/ (the header's "Sign in" link followed on this page).
    _, owner, _ = _attempt_and_users()

    reply = owner.get("/signin/", {"next": target})

    assert reply.status_code == 302
    assert reply["Location"] == "/dashboard/"


def test_signing_in_with_a_next_naming_the_sign_in_page_goes_to_the_dashboard() -> None:
    user = member(new_course(), Role.STUDENT)
    user.set_password("pw-for-this-test")
    user.save()
    data = {"username": user.username, "password": "pw-for-this-test", "next": "/signin/"}

    reply = Client().post("/signin/", data)

    assert reply.status_code == 302
    assert reply["Location"] == "/dashboard/"


def test_the_sign_in_page_header_link_names_no_next() -> None:
    page = Client().get("/signin/", {"next": "/dashboard/"}).content.decode()

    assert 'href="/signin/?next=' not in page


def test_the_quiz_page_says_without_javascript_that_nothing_is_saved() -> None:
    # With JavaScript off the page said "Answers are saved as you type" and showed the
    # questions, but saved nothing and its Submit button did nothing: an hour's essay lost.
    attempt, owner, _ = _attempt_and_users()

    page = owner.get(f"/attempts/{attempt}/").content.decode()

    notice = page.split("<noscript>")[1].split("</noscript>")[0]
    assert "needs JavaScript" in notice
    assert "nothing you type here is saved" in notice


def test_every_field_description_the_password_form_names_is_on_its_page() -> None:
    """aria-describedby must name elements of the page, or a screen reader reads nothing."""
    _attempt, owner, _other = _attempt_and_users()
    html = owner.get("/password/").content.decode()
    named = {
        name for ids in re.findall(r'aria-describedby="([^"]+)"', html) for name in ids.split()
    }
    assert named
    assert {name for name in named if f'id="{name}"' not in html} == set()


def test_a_site_administrator_not_enrolled_takes_no_quiz() -> None:
    """They hold every role to manage a course; an attempt of theirs would count in its
    statistics and grades."""
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, question(course, NUMERIC))
    admin = new_user(is_staff=True, is_superuser=True)
    browser = Client()
    browser.force_login(admin)
    assert "Your quizzes" not in browser.get("/dashboard/").content.decode()
    refused = browser.post(f"/quizzes/{quiz.pk}/start/", follow=True)
    assert "Only the course&#x27;s enrolled students take its quizzes" in refused.content.decode()
    api = APIClient()
    api.force_authenticate(admin)
    reply = api.post(f"/api/quizzes/{quiz.pk}/attempts/")
    assert (reply.status_code, reply.json()["error"]["code"]) == (400, "not_a_student")
    assert not Attempt.objects.filter(user=admin).exists()
    member(course, Role.STUDENT, admin)  # enrolled, they take it like anyone
    assert api.post(f"/api/quizzes/{quiz.pk}/attempts/").status_code == 201


def test_a_student_removed_from_the_course_still_finds_their_past_attempts() -> None:
    course = new_course()
    quiz = new_quiz(course=course, title="Week 1 check")
    add_slots(quiz, question(course, NUMERIC))
    student = member(course, Role.STUDENT)
    attempt = attempt_start(quiz=quiz, user=student, now=timezone.now())
    browser = Client()
    browser.force_login(student)
    browser.post(f"/api/attempts/{attempt.pk}/submit/")
    CourseMembership.objects.filter(user=student).delete()
    page = browser.get("/dashboard/").content.decode()
    assert "You are not enrolled in a course as a student now" in page
    assert "Week 1 check" in page
    assert f'href="/attempts/{attempt.pk}/result/"' in page
    assert "not a member of any course yet" not in page
    assert "No quiz is open for you now" not in page


def test_a_numeric_answer_typed_with_its_unit_is_saved_and_another_unit_is_refused() -> None:
    """The quiz page asks for the answer "(in ms)"; what its save is told, the page shows beside
    the question ("Question 1: ...")."""
    course = new_course()
    quiz = new_quiz(course=course)
    add_slots(quiz, question(course, {**NUMERIC, "unit": "ms"}))
    student = member(course, Role.STUDENT)
    page, api = Client(), APIClient()
    page.force_login(student)
    api.force_authenticate(student)
    attempt = start(api, quiz.pk)["id"]
    assert (
        '<label for="q0-input">Your answer (in ms)</label>'
        in page.get(f"/attempts/{attempt}/").text
    )
    refused = save(api, attempt, 0, {"value": "0.011 s"})
    assert refused.status_code == 400
    said = "Type only the number, in ms: '0.011 s' has 's' after it."
    assert refused.json()["error"]["fields"] == {"answer.value": [said]}
    assert save(api, attempt, 0, {"value": "11 ms"}).status_code == 200
    assert submit(api, attempt).status_code == 200
    assert Attempt.objects.get(pk=attempt).responses.get().score == 1.0

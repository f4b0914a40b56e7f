"""The author's access page: enrol, give extra time, and the student's clock is longer."""

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from pytest_django import Settings

from grading.services.attempts import attempt_start
from quizbank.models import QuizAccessOverride, Role
from tests.grading.content import SINGLE
from tests.grading.factories import add_slots, api_as, member, new_course, new_quiz, question

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_an_author_enrols_a_student_and_gives_fifty_percent_extra_time() -> None:
    course = new_course()
    quiz = new_quiz(course=course, time_limit=timedelta(minutes=30))
    add_slots(quiz, question(course, SINGLE))
    author = _browser(member(course, Role.AUTHOR))
    student = User.objects.create(username="sam", email="sam@example.org")
    url = f"/author/quizzes/{quiz.pk}/access/"
    csv = SimpleUploadedFile("class.csv", b"email\nsam@example.org\n", content_type="text/csv")
    enrolled = author.post(url, {"action": "enrol", "csv": csv}, follow=True)
    assert "Enrolled 1" in enrolled.text
    saved = author.post(
        url, {"action": "override", "student": "sam", "extra_time_percent": "50"}, follow=True
    )
    assert "Saved the override for sam" in saved.text
    attempt = attempt_start(quiz=quiz, user=student, now=T0)
    assert attempt.deadline == T0 + timedelta(minutes=45)


def test_an_own_window_is_typed_and_listed_in_the_sites_time_zone(settings: Settings) -> None:
    settings.TIME_ZONE = "Asia/Tokyo"
    course = new_course()
    quiz = new_quiz(course=course)
    author = _browser(member(course, Role.AUTHOR))
    sam = member(course, Role.STUDENT)
    url = f"/author/quizzes/{quiz.pk}/access/"
    form = author.get(url).text
    assert '<label for="opens_at">Own window opens (Asia/Tokyo)</label>' in form
    assert '<label for="closes_at">closes (Asia/Tokyo)</label>' in form
    body = {
        "action": "override",
        "student": sam.username,
        "opens_at": "2030-02-28T10:00",
        "closes_at": "2030-02-28T12:30",
    }
    shown = author.post(url, body, follow=True).text
    assert "opens 28 Feb 2030, 10:00 JST, closes 28 Feb 2030, 12:30 JST" in shown
    assert QuizAccessOverride.objects.get().opens_at == datetime(2030, 2, 28, 1, 0, tzinfo=UTC)


def test_an_accommodation_is_listed_in_words_and_can_be_removed() -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    author = _browser(member(course, Role.AUTHOR))
    url = f"/author/quizzes/{quiz.pk}/access/"
    sam = member(course, Role.STUDENT)
    body = {"action": "override", "student": sam.username, "extra_time_percent": "25"}
    shown = author.post(url, body, follow=True).text
    assert '<td data-label="Window">the quiz\'s own</td>' in shown
    assert f'data-confirm-text="Remove the accommodation of {sam.username}?' in shown
    override = QuizAccessOverride.objects.get(user=sam)
    other_quiz = new_quiz(course=course)
    elsewhere = author.post(
        f"/author/quizzes/{other_quiz.pk}/access/",
        {"action": "remove_override", "override": str(override.pk)},
        follow=True,
    )
    assert "No such accommodation on this quiz" in elsewhere.text
    assert QuizAccessOverride.objects.filter(pk=override.pk).exists()
    removed = author.post(
        url, {"action": "remove_override", "override": str(override.pk)}, follow=True
    )
    assert f"Removed the accommodation of {sam.username}" in removed.text
    assert not QuizAccessOverride.objects.exists()
    again = author.post(url, {"action": "remove_override", "override": "x"}, follow=True)
    assert "No such accommodation on this quiz" in again.text


def test_bad_input_is_a_message_never_a_500() -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    author = _browser(member(course, Role.AUTHOR))
    url = f"/author/quizzes/{quiz.pk}/access/"
    bad = [
        {"action": "override", "student": "nobody"},
        {"action": "override", "student": member(course, Role.EXAMINER).username},
        {"action": "override", "student": "x", "extra_time_percent": "-5"},
        {"action": "rules", "access_code": "", "allowed_networks": "the lab"},
        {"action": "bogus"},
        {"action": "enrol", "csv": SimpleUploadedFile("x.csv", b"\xff\xfe")},
    ]
    for body in bad:
        assert author.post(url, body, follow=True).status_code == 200
    assert not QuizAccessOverride.objects.exists()
    assert author.get(url).status_code == 200


def test_the_page_and_the_api_keep_the_same_number_of_networks() -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    user = member(course, Role.AUTHOR)
    url = f"/author/quizzes/{quiz.pk}/access/"
    networks = [f"10.{i}.0.0/16" for i in range(51)]
    body = {"action": "rules", "access_code": "", "allowed_networks": "\n".join(networks)}
    refused = _browser(user).post(url, body, follow=True)
    assert "51 networks given; a quiz allows at most 50" in refused.content.decode()
    quiz.refresh_from_db()
    assert quiz.allowed_networks == []
    body["allowed_networks"] = "\n".join(networks[:50])
    _browser(user).post(url, body)
    api = api_as(user)
    read = api.get(f"/api/quizzes/{quiz.pk}/access/").json()
    assert len(read["allowed_networks"]) == 50
    rules = {"access_code": "", "allowed_networks": read["allowed_networks"]}
    assert api.put(f"/api/quizzes/{quiz.pk}/access/", rules, format="json").status_code == 200


def test_a_long_reason_is_refused_not_cut_and_unknown_names_are_shown_short() -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    author = _browser(member(course, Role.AUTHOR))
    User.objects.create(username="sam", email="sam@example.org")
    url = f"/author/quizzes/{quiz.pk}/access/"
    author.post(url, {"action": "enrol", "entries": "sam"})
    body = {"action": "override", "student": "sam", "reason": "r" * 201}
    refused = author.post(url, body, follow=True)
    assert "The reason is 201 characters long" in refused.text
    assert not QuizAccessOverride.objects.exists()
    unknown = author.post(url, {"action": "enrol", "entries": "y" * 5000}, follow=True)
    assert f"no account for {'y' * 40}…" in unknown.text
    assert "y" * 41 not in unknown.text


def test_only_the_course_authors_open_it() -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    url = f"/author/quizzes/{quiz.pk}/access/"
    assert _browser(member(course, Role.STUDENT)).get(url).status_code == 403
    assert _browser(member(course, Role.EXAMINER)).get(url).status_code == 403
    assert _browser(member(new_course(), Role.AUTHOR)).get(url).status_code == 404


def test_a_refused_accommodation_names_every_problem_and_keeps_what_was_typed() -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    author = _browser(member(course, Role.AUTHOR))
    User.objects.create(username="sam", email="sam@example.org")
    url = f"/author/quizzes/{quiz.pk}/access/"
    author.post(url, {"action": "enrol", "entries": "sam"})
    body = {
        "action": "override",
        "student": "sam",
        "extra_time_percent": "900",
        "extra_attempts": "abc",
        "reason": "exam arrangement",
    }
    refused = author.post(url, body)
    assert refused.status_code == 200
    page = refused.text
    assert "Extra time is a whole number of percent from 0 to" in page
    assert "Extra attempts are a whole number from 0 to" in page
    assert 'value="sam"' in page
    assert 'value="exam arrangement"' in page
    assert 'value="900"' in page
    assert not QuizAccessOverride.objects.exists()


def test_a_misspelt_student_or_a_bad_network_comes_back_as_typed() -> None:
    # An unknown username was taken as done: the page redirected and dropped the extra time
    # and reason typed; a refused network list came back as the saved list, not the typed one.
    course = new_course()
    quiz = new_quiz(course=course)
    author = _browser(member(course, Role.AUTHOR))
    url = f"/author/quizzes/{quiz.pk}/access/"
    body = {"action": "override", "student": "samm", "extra_time_percent": "50", "reason": "SpLD"}

    misspelt = author.post(url, body)

    assert misspelt.status_code == 200
    assert "Not saved: No student &#x27;samm&#x27; in this course." in misspelt.text
    assert 'value="samm"' in misspelt.text
    assert 'value="50"' in misspelt.text
    assert 'value="SpLD"' in misspelt.text
    rules = {"action": "rules", "access_code": "hall-b", "allowed_networks": "10.2.0.0/16\nlab 3"}
    refused = author.post(url, rules)
    assert refused.status_code == 200
    assert "10.2.0.0/16\nlab 3</textarea>" in refused.text
    assert 'value="hall-b"' in refused.text


def test_enrolling_a_member_of_staff_says_so() -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    author = _browser(member(course, Role.AUTHOR))
    examiner = member(course, Role.EXAMINER)
    reply = author.post(
        f"/author/quizzes/{quiz.pk}/access/",
        {"action": "enrol", "entries": examiner.username},
        follow=True,
    )
    assert "Enrolled 1" in reply.text
    assert f"{examiner.username} also teaches this course" in reply.text


def test_an_author_removes_a_student_who_keeps_an_open_attempt_but_starts_no_new_one() -> None:
    course = new_course()
    quiz = new_quiz(course=course, attempts_allowed=3)
    add_slots(quiz, question(course, SINGLE))
    author = member(course, Role.AUTHOR)
    sam = member(course, Role.STUDENT)
    student = api_as(sam)
    started = student.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    url = f"/author/quizzes/{quiz.pk}/access/"
    page = _browser(author).get(url).text
    assert "Remove students from the course" in page
    assert 'data-confirm-text="Remove these students' in page
    removed = _browser(author).post(
        url, {"action": "unenrol", "entries": f"{sam.username}\nnobody"}, follow=True
    )
    assert f"Removed 1 from the course ({sam.username}); their attempts and grades are kept" in (
        removed.text
    )
    assert "no account for nobody" in removed.text
    assert student.post(f"/api/quizzes/{quiz.pk}/attempts/").status_code == 404
    assert _browser(sam).get(f"/attempts/{started['id']}/").status_code == 200
    submitted = student.post(f"/api/attempts/{started['id']}/submit/")
    assert submitted.status_code == 200, submitted.content
    empty = _browser(author).post(url, {"action": "unenrol", "entries": " "}, follow=True)
    assert "Not saved: Give the usernames or e-mails of the students to remove." in empty.text


def test_the_api_removes_students_for_authors_only() -> None:
    course = new_course()
    sam = member(course, Role.STUDENT)
    url = f"/api/courses/{course.pk}/students/remove/"
    examiner = api_as(member(course, Role.EXAMINER))
    assert examiner.post(url, {"entries": [sam.username]}, format="json").status_code == 403
    author = api_as(member(course, Role.AUTHOR))
    reply = author.post(url, {"entries": [sam.username, "ghost"]}, format="json")
    assert reply.status_code == 200
    assert reply.json() == {
        "removed": [sam.username],
        "not_enrolled": [],
        "unknown": ["ghost"],
        "ambiguous": [],
    }
    assert author.post(url, {"entries": "sam"}, format="json").status_code == 400


def test_enrolling_by_a_username_in_another_case_names_the_one_account_or_says_it_is_several() -> (
    None
):
    course = new_course()
    quiz = new_quiz(course=course)
    author = member(course, Role.AUTHOR)
    User.objects.create(username="Alice")
    User.objects.create(username="Carol")
    User.objects.create(username="carol")
    reply = api_as(author).post(
        f"/api/courses/{course.pk}/students/", {"entries": ["alice", "CAROL"]}, format="json"
    )
    assert reply.status_code == 200, reply.content
    assert (reply.json()["added"], reply.json()["ambiguous"]) == (["Alice"], ["CAROL"])
    page = _browser(author).post(
        f"/author/quizzes/{quiz.pk}/access/", {"action": "enrol", "entries": "cArOl"}, follow=True
    )
    assert "several accounts match cArOl ignoring case: give the exact username" in page.text


def test_an_override_names_its_student_ignoring_case_when_only_one_matches() -> None:
    course = new_course()
    quiz = new_quiz(course=course, time_limit=timedelta(minutes=30))
    author = _browser(member(course, Role.AUTHOR))
    url = f"/author/quizzes/{quiz.pk}/access/"
    alice = member(course, Role.STUDENT, User.objects.create(username="Alice"))
    body = {"action": "override", "student": "alice", "extra_time_percent": "25"}
    assert "Saved the override for Alice" in author.post(url, body, follow=True).text
    assert QuizAccessOverride.objects.get(quiz=quiz).user == alice
    member(course, Role.STUDENT, User.objects.create(username="ALICE"))  # an older twin
    body["student"] = "aLiCe"
    refused = author.post(url, body, follow=True).text
    assert "No student" in refused
    body["student"] = "ALICE"  # the exact name still picks its own account
    assert "Saved the override for ALICE" in author.post(url, body, follow=True).text


def test_the_access_page_leads_back_to_the_quiz_builder_and_the_preview() -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    author = _browser(member(course, Role.AUTHOR))
    page = author.get(f"/author/quizzes/{quiz.pk}/access/").text
    assert f'<a href="/author/quizzes/{quiz.pk}/">Back to the quiz builder</a>' in page
    assert f'<a href="/quizzes/{quiz.pk}/preview/">Preview the quiz as a student</a>' in page

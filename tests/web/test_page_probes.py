"""Hostile input to the pages that read their forms by hand (marking, live viva, a quiz's
access, the question editor, LTI login): each is refused with a message that says what and
where, never a 500 and never a change made in the wrong place. Found by a probe of the pages
field by field (test_page_fuzz.py sends one value to every field at once, so a field guarded
by another one was never reached)."""

import html
import re
from typing import Any

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from grading.models.marking import Mark
from grading.models.viva_sessions import VivaSession
from quizbank.models import Question, QuizAccessOverride, Role, Topic
from quizbank.services.question_authoring import starter_yaml
from quizbank.services.quiz_write import course_create
from tests.grading.content import SINGLE
from tests.grading.factories import (
    Staff,
    member,
    new_course,
    new_topic,
    new_user,
    staffed_quiz,
    submitted_attempt,
    viva_staff,
)

pytestmark = pytest.mark.django_db
SUPERSCRIPT_TWO = "\u00b2"  # str.isdigit() says yes, int() says no
NUL = "a\x00b"


def browser(user: Any) -> Client:
    """Signed in, and answering a 500 as a page instead of raising it."""
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


@pytest.fixture
def staff() -> Staff:
    return viva_staff()


def _viva(staff: Staff) -> tuple[Client, str]:
    page = browser(staff.examiner)
    page.post(f"/examiner/quizzes/{staff.quiz.pk}/viva/", {"student": staff.student.pk})
    url = f"/examiner/vivas/{VivaSession.objects.get().pk}/"
    page.post(url, {"action": "draw"})
    return page, url


def _answer(staff: Staff) -> int:
    return int(submitted_attempt(staff.quiz, staff.student, {0: {"text": "x"}}).responses.get().pk)


def _access(staff: Staff) -> tuple[Client, str]:
    return browser(member(staff.course, Role.AUTHOR)), f"/author/quizzes/{staff.quiz.pk}/access/"


def _shown(reply: Any) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", reply.content.decode()))


# Numbers written with digits int() does not read.


def test_a_preview_of_a_version_that_is_not_a_number_is_not_found(staff: Staff) -> None:
    question = staff.quiz.slots.get().question
    assert question is not None
    for version in (SUPERSCRIPT_TWO, "abc", "-1", "9" * 40):
        reply = browser(staff.examiner).get(f"/questions/{question.pk}/preview/?version={version}")
        assert reply.status_code == 404, version


def test_a_preview_links_to_the_editor_for_authors_only(staff: Staff) -> None:
    question = staff.quiz.slots.get().question
    assert question is not None
    url, edit = f"/questions/{question.pk}/preview/", f"/author/questions/{question.pk}/"
    assert f'href="{edit}"' not in browser(staff.examiner).get(url).content.decode()
    author = member(staff.course, Role.AUTHOR)
    assert f'href="{edit}"' in browser(author).get(url).content.decode()


def test_a_marking_level_that_is_not_a_number_is_refused(staff: Staff) -> None:
    url = f"/examiner/marking/{_answer(staff)}/"
    reply = browser(staff.examiner).post(url, {"level-0": SUPERSCRIPT_TWO}, follow=True)
    assert reply.status_code == 200
    assert "Not saved" in _shown(reply) or "level" in _shown(reply).lower()
    assert not Mark.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        {"action": "record", "position": SUPERSCRIPT_TWO, "notes": "x"},
        {"action": "record", "position": "0", "notes": "x", "level-0": SUPERSCRIPT_TWO},
    ],
    ids=["position", "level"],
)
def test_a_live_viva_number_that_is_not_one_is_refused(staff: Staff, body: dict[str, str]) -> None:
    page, url = _viva(staff)
    reply = page.post(url, body, follow=True)
    assert reply.status_code == 200
    # A bad position refuses the whole record; a bad level refuses the mark, the notes kept.
    said = "Not done" if "level-0" not in body else "The notes are saved, but not the mark"
    assert said in _shown(reply)
    assert not Mark.objects.exists()


def test_a_viva_for_a_student_that_is_not_a_number_starts_nothing(staff: Staff) -> None:
    url = f"/examiner/quizzes/{staff.quiz.pk}/viva/"
    reply = browser(staff.examiner).post(url, {"student": SUPERSCRIPT_TWO})
    assert reply.status_code in (200, 302)
    assert not VivaSession.objects.exists()


def test_an_unreadable_viva_position_does_not_overwrite_the_first_question(staff: Staff) -> None:
    page, url = _viva(staff)
    page.post(url, {"action": "record", "position": "0", "notes": "What the student said."})
    for position in ("first", "", SUPERSCRIPT_TWO):
        page.post(url, {"action": "record", "position": position, "notes": ""})
    session = VivaSession.objects.get()
    assert session.attempt.responses.get(position=0).answer == {"text": "What the student said."}


def test_extra_time_that_is_not_a_number_is_refused(staff: Staff) -> None:
    page, url = _access(staff)
    body = {
        "action": "override",
        "student": staff.student.username,
        "extra_time_percent": SUPERSCRIPT_TWO,
    }
    reply = page.post(url, body, follow=True)
    assert reply.status_code == 200
    assert "Not saved" in _shown(reply)
    assert not QuizAccessOverride.objects.exists()


# Text PostgreSQL cannot store, in forms no Django form reads.


@pytest.mark.parametrize(
    ("where", "body"),
    [
        ("marking", {"level-0": "1", "comment": NUL}),
        ("viva", {"action": "record", "position": "0", "notes": NUL}),
        (
            "viva",
            {"action": "record", "position": "0", "notes": "ok", "level-0": "1", "comment": NUL},
        ),
        ("access", {"action": "override", "student": "s", "reason": NUL}),
        ("access", {"action": "override", "student": NUL}),
        ("access", {"action": "enrol", "entries": NUL}),
    ],
)
def test_a_nul_in_a_page_form_is_a_400_naming_the_field(
    staff: Staff, where: str, body: dict[str, str]
) -> None:
    if where == "marking":
        page, url = browser(staff.examiner), f"/examiner/marking/{_answer(staff)}/"
    elif where == "viva":
        page, url = _viva(staff)
    else:
        page, url = _access(staff)
    reply = page.post(url, body)
    assert reply.status_code == 400
    field = next(name for name, value in body.items() if value == NUL)
    assert f"The field {field} holds a character that cannot be stored" in _shown(reply)
    assert "Signed in as" in _shown(reply)
    assert not Mark.objects.exists()
    assert not QuizAccessOverride.objects.exists()


def test_a_form_over_the_size_or_field_limits_says_which(staff: Staff) -> None:
    page, url = browser(staff.examiner), f"/examiner/marking/{_answer(staff)}/"
    huge = page.post(url, {"comment": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)})
    assert huge.status_code == 413
    assert "The form is larger than the 2,621,440 bytes a page takes" in _shown(huge)
    fields = "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    many = page.post(url, fields, content_type="application/x-www-form-urlencoded")
    assert many.status_code == 400
    assert "The form has more than 1,000 fields" in _shown(many)
    signin = Client().post("/signin/", {"username": "x", "password": "p" * 3_000_000})
    assert signin.status_code == 413
    assert not Mark.objects.exists()


def test_a_change_reason_with_a_nul_leaves_the_first_mark_as_it_was(staff: Staff) -> None:
    page, url = browser(staff.examiner), f"/examiner/marking/{_answer(staff)}/"
    assert page.post(url, {"level-0": "1"}).status_code == 302
    assert page.post(url, {"level-0": "2", "reason": NUL}).status_code == 400
    assert Mark.objects.get().levels == [1]


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"a\x00b\n", "cannot be stored"),
        (b"x" * 200_000, "could not be read"),  # one field past the csv module's limit
    ],
    ids=["nul", "huge field"],
)
def test_an_unreadable_enrolment_file_is_refused_with_why(
    staff: Staff, data: bytes, said: str
) -> None:
    page, url = _access(staff)
    upload = SimpleUploadedFile("students.csv", data, content_type="text/csv")
    reply = page.post(url, {"action": "enrol", "csv": upload}, follow=True)
    assert reply.status_code == 200
    assert said in _shown(reply)


def test_an_unreadable_closing_time_is_refused_not_dropped() -> None:
    staff, _ = staffed_quiz(SINGLE)
    page, url = _access(staff)
    body = {
        "action": "override",
        "student": staff.student.username,
        "extra_time_percent": "0",
        "closes_at": "2030-02-30T10:00",
    }
    reply = page.post(url, body, follow=True)
    assert "Saved the override" not in _shown(reply)
    assert "Closes at '2030-02-30T10:00' is not a date and time" in _shown(reply)
    assert not QuizAccessOverride.objects.exists()


# The question editor: YAML that is one mapping but not a question.

_SINGLE, _CODE = starter_yaml("single_choice"), starter_yaml("code")
EDITOR_CASES = {
    "number key": (_SINGLE + "1: x\n", "a key must be text"),
    "null key": (_SINGLE + "~: x\n", "a key must be text"),
    "yes key": (_SINGLE.replace("correct: true", "correct: true\n    yes: 1"), "must be text"),
    "number file name": (_CODE + "  5: 'x = 1'\n", "a key must be text"),
    "nul in a file name": (
        _CODE + '  "wrong_a\\0.py": "def double(x):\\n    return x\\n"\n',
        "NUL characters",
    ),
    "400-digit number": (
        "type: numeric\ntitle: T\nprompt: P\nanswers:\n  - value: " + "9" * 400 + "\n",
        "of a usable size",
    ),
}


@pytest.mark.parametrize("name", sorted(EDITOR_CASES))
def test_the_question_editor_refuses_with_a_message(name: str) -> None:
    course = new_course()
    topic = new_topic(course=course)
    text, said = EDITOR_CASES[name]
    page = browser(member(course, Role.AUTHOR))
    body = {"slug": "q", "topic": topic.slug, "content": text}
    reply = page.post(f"/author/courses/{course.pk}/questions/new/", body)
    assert reply.status_code == 200
    assert "errorlist" in reply.content.decode()
    assert said in _shown(reply)
    assert not Question.objects.filter(course=course).exists()


def test_a_400_digit_number_over_the_api_is_a_400() -> None:
    course = new_course()
    topic = new_topic(course=course)
    api = APIClient(raise_request_exception=False)
    api.force_authenticate(member(course, Role.AUTHOR))
    big = "9" * 400  # past any float, written as a JSON number
    body = (
        f'{{"course": {course.pk}, "slug": "big", "topic": "{topic.slug}", "content": '
        f'{{"type": "numeric", "title": "T", "prompt": "P", "answers": [{{"value": {big}}}]}}}}'
    )
    reply = api.post("/api/questions/", body, content_type="application/json")
    assert reply.status_code == 400, reply.content
    assert "usable size" in reply.content.decode()


def test_the_editors_help_shows_the_file_name_pattern() -> None:
    course = new_course()
    new_topic(course=course)
    page = browser(member(course, Role.AUTHOR)).get(f"/author/courses/{course.pk}/questions/new/")
    assert page.status_code == 200
    assert "wrong_<name>.py" not in page.content.decode()
    assert "wrong_&lt;name&gt;.py" in page.content.decode()


def test_a_course_with_no_topic_says_so_and_its_author_can_add_one() -> None:
    owner = new_user()
    course = course_create(slug="fresh", title="Fresh", owner_id=owner.pk)
    page = browser(owner)
    new_question = f"/author/courses/{course.pk}/questions/new/"
    body = {"slug": "q1", "content": "type: true_false\ntitle: T\nprompt: P\nanswer: true\n"}
    refused = page.post(new_question, body)
    assert refused.status_code == 200
    assert "This course has no topic yet" in _shown(refused)

    listed = f"/author/courses/{course.pk}/questions/"
    assert "This course has no topic yet" in _shown(page.get(listed))
    added = page.post(listed, {"title": "Autograd basics"}, follow=True)
    assert "Added the topic Autograd basics." in _shown(added)
    topic = Topic.objects.get(course=course)
    assert topic.slug == "autograd-basics"
    again = page.post(listed, {"title": "autograd BASICS"}, follow=True)
    assert "already has a topic titled 'autograd BASICS'" in _shown(again)
    assert Topic.objects.filter(course=course).count() == 1
    saved = page.post(new_question, {**body, "topic": topic.slug})
    assert saved.status_code == 302
    assert Question.objects.get(course=course).topic == topic


def test_topics_over_the_api() -> None:
    course = new_course()
    author = APIClient()
    author.force_authenticate(member(course, Role.AUTHOR))
    url = f"/api/courses/{course.pk}/topics/"
    made = author.post(url, {"title": "Tensors: shapes & views"}, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["slug"] == "tensors-shapes-views"
    taken = author.post(url, {"title": "Again", "slug": "tensors-shapes-views"}, format="json")
    assert (taken.status_code, taken.json()["error"]["code"]) == (409, "slug_taken")
    bad = author.post(url, {"title": "Bad", "slug": "Not A Slug"}, format="json")
    assert bad.status_code == 400
    assert [t["slug"] for t in author.get(url).json()] == ["tensors-shapes-views"]
    student = APIClient()
    student.force_authenticate(member(course, Role.STUDENT))
    assert student.post(url, {"title": "Mine"}, format="json").status_code == 403


# LTI login initiation is public: a malformed one is a refusal page.


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"iss": "https://lms.example"},
        {"iss": "https://unknown.example", "login_hint": "u1"},
        {"iss": "https://unknown.example", "login_hint": "u1", "client_id": "c"},
    ],
    ids=["no iss", "no login hint", "unknown issuer", "unknown client"],
)
def test_a_malformed_lti_login_initiation_is_refused(params: dict[str, str]) -> None:
    query = {"target_link_uri": "https://tool.example/lti/launch/", **params}
    reply = Client(raise_request_exception=False).get("/lti/login/", query)
    assert 400 <= reply.status_code < 500

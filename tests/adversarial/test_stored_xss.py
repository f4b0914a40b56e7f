"""Stored XSS: an author's question (title, prompt, choices, feedback, rubric), a student's
username and text answer and an examiner's comment carry markup; no page renders it live."""

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from grading.models import Response
from quizbank.models import Question, ReleasePolicy, Role
from quizbank.services.bank_import import bank_write_question
from tests.grading.content import SINGLE, VIVA
from tests.grading.factories import (
    Staff,
    add_slots,
    api_as,
    member,
    new_topic,
    staffed_quiz,
    submitted_attempt,
)

pytestmark = pytest.mark.django_db

XSS = (
    '<script>alert("xss")</script><img src=x onerror=alert(1)>'
    '<svg onload=alert(2)></svg>[link](javascript:alert(3))<a href="javascript:alert(4)">a</a>'
)
SHORT_XSS = "<img src=x onerror=alert(5)>"  # fits a 100-character rubric level label
LIVE = re.compile(r"<script>alert|<img[^>]*onerror|<svg[^>]*onload|href=\"javascript:", re.I)


def _hostile_single() -> dict[str, object]:
    choices = [{**c, "text": f"{c['text']} {XSS}", "feedback": XSS} for c in SINGLE["choices"]]
    return {**SINGLE, "title": XSS, "prompt": XSS, "choices": choices}


def _hostile_viva() -> dict[str, object]:
    [criterion] = VIVA["rubric"]
    levels = [{**level, "label": SHORT_XSS, "descriptor": XSS} for level in criterion["levels"]]
    rubric = [{**criterion, "criterion": XSS, "levels": levels}]
    hostile = {"title": XSS, "prompt": XSS, "model_answer": XSS, "guidance": XSS}
    return {**VIVA, **hostile, "rubric": rubric}


def _authored(staff: Staff, slug: str, content: dict[str, object]) -> Question:
    """The question as an author's import stores it (its prompt rendered and sanitised)."""
    topic = new_topic(course=staff.course)
    bank_write_question(
        course=staff.course,
        topic=topic,
        slug=slug,
        question=None,
        content={"points": 2.0, "difficulty": "beginner", "tags": [], **content},
        user=None,
    )
    return Question.objects.get(course=staff.course, slug=slug)


def _browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_no_page_runs_markup_from_authors_students_or_examiners() -> None:
    staff, _ = staffed_quiz()
    add_slots(
        staff.quiz,
        _authored(staff, "hostile-single", _hostile_single()),
        _authored(staff, "hostile-viva", _hostile_viva()),
    )
    staff.quiz.title = XSS
    staff.quiz.release_policy = ReleasePolicy.IMMEDIATELY
    staff.quiz.save()
    student = member(staff.course, Role.STUDENT, User.objects.create(username=XSS[:150]))
    student_pages = _browser(student)
    started = api_as(student).post(f"/api/quizzes/{staff.quiz.pk}/attempts/", {}, format="json")
    attempt_id = started.json()["id"]
    pages = [student_pages.get(f"/attempts/{attempt_id}/"), student_pages.get("/dashboard/")]
    attempt = submitted_attempt(staff.quiz, student, {0: {"choice": 1}, 1: {"text": XSS}})
    viva = Response.objects.get(attempt=attempt, position=1)
    marked = api_as(staff.examiner).post(
        f"/api/marking/responses/{viva.pk}/marks/",
        {"levels": [2], "comment": XSS, "adjustment": -1, "adjustment_reason": XSS},
        format="json",
    )
    assert marked.status_code == 201, marked.content
    examiner = _browser(staff.examiner)
    pages += [
        student_pages.get(f"/attempts/{attempt.pk}/result/"),
        examiner.get(f"/attempts/{attempt.pk}/result/"),
        examiner.get(f"/examiner/marking/{viva.pk}/"),
        examiner.get("/examiner/marking/"),
        examiner.get(f"/examiner/quizzes/{staff.quiz.pk}/report/"),
        examiner.get(f"/examiner/quizzes/{staff.quiz.pk}/release/"),
        examiner.get(f"/quizzes/{staff.quiz.pk}/preview/", follow=True),
        examiner.get("/dashboard/"),
    ]
    assert [page.status_code for page in pages] == [200] * len(pages)
    live = [LIVE.findall(page.content.decode()) for page in pages]
    assert live == [[] for _ in pages]
    result = pages[2].content.decode()
    assert "&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;" in result  # shown, as text

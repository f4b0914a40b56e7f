"""Choice texts are Markdown: students get them rendered and sanitised, like prompts."""

import pytest
from rest_framework.test import APIClient

from quizbank.models import Role
from tests.api.helpers import start
from tests.grading.content import SINGLE
from tests.grading.factories import add_slots, member, new_course, new_quiz, question

pytestmark = pytest.mark.django_db

MARKDOWN_CHOICES = {
    **SINGLE,
    "choices": [
        {"text": "`x.grad` holds $\\partial L / \\partial x$", "correct": True},
        {"text": "**bold** <script>alert(1)</script>"},
    ],
}


def test_choices_arrive_as_sanitised_html_beside_their_text() -> None:
    course = new_course()
    quiz = new_quiz(course=course, shuffle_choices=False)
    add_slots(quiz, question(course, MARKDOWN_CHOICES))
    client = APIClient()
    client.force_authenticate(member(course, Role.STUDENT))

    choices = start(client, quiz.pk)["responses"][0]["question"]["choices"]

    assert "<code>x.grad</code>" in choices[0]["html"]
    assert 'class="math' in choices[0]["html"]
    assert "<script>" not in choices[1]["html"]
    assert "<strong>bold</strong>" in choices[1]["html"]
    assert choices[1]["text"] == "**bold** <script>alert(1)</script>"

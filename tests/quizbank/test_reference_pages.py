"""The reference pages the question form and the report link to, rendered from docs/."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from quizbank.models import Role
from quizbank.services.question_authoring import MAX_YAML_CHARS
from tests.grading.factories import member, new_course, new_quiz

pytestmark = pytest.mark.django_db


def _signed_in(role: str) -> tuple[Client, int]:
    course = new_course()
    client = Client()
    client.force_login(member(course, role))
    return client, course.pk


def test_the_question_form_links_the_bank_format_page_which_renders_its_tables() -> None:
    client, course_id = _signed_in(Role.AUTHOR)
    form = client.get(f"/author/courses/{course_id}/questions/new/").content.decode()
    assert 'href="/author/help/bank-format/"' in form
    assert "Version:" not in form  # the hidden version field has no visible label
    page = client.get("/author/help/bank-format/")
    assert page.status_code == 200
    assert "<table>" in page.content.decode()
    assert "entry_point" in page.content.decode()
    # Each table scrolls in its own box: on a phone they made the page 420px wide.
    shown = page.content.decode()
    assert shown.count('<div class="table-wrap" role="region"') == shown.count("<table>")
    assert shown.count("</table></div>") == shown.count("<table>")
    # ... each box with its own name, and the page with its own title.
    labels = re.findall(r'aria-label="(Table \d+) \(scrolls sideways\)"', shown)
    assert len(labels) == len(set(labels)) == shown.count("<table>")
    assert "<title>Bank format" in shown
    assert "<title>Item statistics" in client.get("/author/help/statistics/").content.decode()


def test_links_between_the_reference_pages_open_each_other() -> None:
    client, _ = _signed_in(Role.AUTHOR)
    shown = client.get("/author/help/bank-format/").content.decode()
    assert 'href="/author/help/interchange/' in shown
    assert ".md" not in re.sub(r"<code>.*?</code>", "", shown).split("<main", 1)[1]
    interchange = client.get("/author/help/interchange/")
    assert interchange.status_code == 200
    assert 'href="/author/help/bank-format/' in interchange.content.decode()


def test_the_report_links_the_statistics_page() -> None:
    course = new_course()
    quiz = new_quiz(course=course)
    client = Client()
    client.force_login(member(course, Role.EXAMINER))
    report = client.get(f"/examiner/quizzes/{quiz.pk}/report/").content.decode()
    assert 'href="/author/help/statistics/"' in report
    assert client.get("/author/help/statistics/").status_code == 200


def test_only_the_named_pages_are_served() -> None:
    client, _ = _signed_in(Role.STUDENT)
    assert client.get("/author/help/README/").status_code == 404
    assert client.get("/author/help/..%2Fsettings/").status_code == 404
    assert Client().get("/author/help/bank-format/").status_code == 302


def test_a_slug_outside_the_bank_rules_says_what_the_rules_are() -> None:
    client, course_id = _signed_in(Role.AUTHOR)
    reply = client.post(f"/author/courses/{course_id}/questions/new/", {"slug": "Bad_Slug"})
    assert "Use lowercase letters and digits, words joined by single hyphens" in reply.text


def test_the_question_text_counts_a_line_break_as_one_character() -> None:
    """The browser's maxlength counts a line break once, and sends it as CR LF."""
    client, course_id = _signed_in(Role.AUTHOR)
    content = "#\r\n" * (MAX_YAML_CHARS // 2)  # MAX_YAML_CHARS characters as typed
    reply = client.post(
        f"/author/courses/{course_id}/questions/new/", {"slug": "lines", "content": content}
    )
    assert "characters (it has" not in reply.text
    over = client.post(
        f"/author/courses/{course_id}/questions/new/",
        {"slug": "lines", "content": content + "#"},
    )
    assert "characters (it has" in over.text

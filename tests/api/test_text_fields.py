"""One-line fields (titles, names) refuse control characters, line breaks and bidi
formatting, naming the field and the character's position; multi-line fields keep tab and
line breaks (config/text.py)."""

from typing import Any

import pytest
from rest_framework.test import APIClient

from config.fields import TextOnlyField
from quizbank.models import Course, Question, Quiz, Topic
from quizbank.services.question_authoring import STARTERS
from tests.api.conftest import World
from tests.grading.factories import new_topic


def _author(world: World) -> APIClient:
    client = APIClient()
    client.force_authenticate(world.author)
    return client


def _write_title(world: World, where: str, title: str) -> Any:
    author = _author(world)
    if where == "course":
        return author.patch(f"/api/courses/{world.course.pk}/", {"title": title}, format="json")
    if where == "quiz":
        return author.patch(f"/api/quizzes/{world.quiz.pk}/", {"title": title}, format="json")
    if where == "new quiz":
        body = {"course": world.course.pk, "slug": "new", "title": title}
        return author.post("/api/quizzes/", body, format="json")
    if where == "topic":
        body = {"title": title, "slug": "new"}
        return author.post(f"/api/courses/{world.course.pk}/topics/", body, format="json")
    new_topic(course=world.course, slug="tensors")
    content = {**STARTERS["true_false"], "title": title}
    body = {"course": world.course.pk, "slug": "new", "topic": "tensors", "content": content}
    return author.post("/api/questions/", body, format="json")


def _titles(world: World) -> set[str]:
    return {
        *Course.objects.values_list("title", flat=True),
        *Quiz.objects.values_list("title", flat=True),
        *Topic.objects.values_list("title", flat=True),
        *Question.objects.values_list("title", flat=True),
    }


FIELDS = {
    "course": "title",
    "quiz": "title",
    "new quiz": "title",
    "topic": "title",
    "question": "content.title",
}


@pytest.mark.parametrize("where", sorted(FIELDS))
@pytest.mark.parametrize(
    ("title", "named"),
    [
        ("Week\x071", "a control character (U+0007) at character 5"),
        ("Week 1\nand 2", "a line break (U+000A) at character 7"),
        ("Week\t1", "a control character (U+0009) at character 5"),
        ("Week 1\x7f", "a control character (U+007F) at character 7"),
        ("Week\u20281", "a line break (U+2028) at character 5"),
        ("exe.\u202etxt", "a bidi formatting character (U+202E) at character 5"),
        ("Week \u2066x\u2069", "a bidi formatting character (U+2066) at character 6"),
    ],
)
def test_a_title_that_is_not_one_line_is_a_400_naming_the_field_and_the_character(
    world: World, where: str, title: str, named: str
) -> None:
    before = _titles(world)
    reply = _write_title(world, where, title)
    assert reply.status_code == 400, reply.content
    fields = reply.json()["error"]["fields"]
    assert list(fields) == [FIELDS[where]]
    assert named in fields[FIELDS[where]][0]
    assert _titles(world) == before


@pytest.mark.parametrize("where", sorted(FIELDS))
def test_a_title_with_blank_space_around_it_is_trimmed_not_refused(
    world: World, where: str
) -> None:
    reply = _write_title(world, where, "  Week 1 \u0645\u0631\u062d\u0628\u0627\n")
    assert reply.status_code in (200, 201), reply.content
    assert "Week 1 \u0645\u0631\u062d\u0628\u0627" in _titles(world)


def test_a_description_keeps_tabs_and_line_breaks(world: World) -> None:
    description = "Line one\n\tindented\r\nright-to-left: \u202bمرحبا\u202c"
    reply = _author(world).patch(
        f"/api/quizzes/{world.quiz.pk}/", {"description": description}, format="json"
    )
    assert reply.status_code == 200, reply.content
    world.quiz.refresh_from_db()
    assert world.quiz.description == description.strip()


def test_a_description_with_another_control_character_is_refused(world: World) -> None:
    reply = _author(world).patch(
        f"/api/courses/{world.course.pk}/", {"description": "ok\n\x1bbad"}, format="json"
    )
    assert reply.status_code == 400, reply.content
    [message] = reply.json()["error"]["fields"]["description"]
    assert "a control character (U+001B) at character 4" in message


def test_code_is_taken_verbatim() -> None:
    """A form feed is legal in Python source: code and passwords are not held to a rule."""
    code = "x = 1\x0c\nprint(x)\n"
    field = TextOnlyField(kind="verbatim", trim_whitespace=False)
    assert field.run_validation(code) == code

"""Category and question names holding control or bidi formatting characters: the characters
are removed, the rest is imported (a category's slug made from what is left), and the report
says what was removed and where; an XML file holding a C0 control character (which XML cannot
hold at all) is refused at its line."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from quizbank.errors import InterchangeRefused
from quizbank.models import Course
from quizbank.services.interchange import interchange_import
from tests.quizbank.factories import make_course
from tests.quizbank.interchange.helpers import notes_of

pytestmark = pytest.mark.django_db

TRUE_FALSE = """<question type="truefalse"><name><text>{name}</text></name>
<questiontext><text>Is the sky blue?</text></questiontext>
<answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text></answer>
</question>"""


def moodle(category: str, name: str) -> bytes:
    category_xml = (
        f'<question type="category"><category><text>$course$/{category}</text></category>'
        "</question>\n"
    )
    return f"<quiz>{category_xml}{TRUE_FALSE.format(name=name)}</quiz>".encode()


def gift(category: str, name: str) -> bytes:
    return f"$CATEGORY: $course$/{category}\n\n::{name}:: Is the sky blue? {{T}}\n".encode()


@pytest.fixture
def course() -> Course:
    return make_course(slug="target")


@pytest.mark.parametrize(
    ("fmt", "data", "removed"),
    [
        ("gift", gift("Bad\x01Cat", "Q1"), "U+0001"),
        ("gift", gift("Bad\x00Cat", "Q1"), "U+0000"),
        ("gift", gift("Bad\x1bCat", "Q1"), "U+001B"),
        ("moodle", moodle("Bad\u009bCat", "Q1"), "U+009B"),
        ("moodle", moodle("Bad\u202eCat", "Q1"), "U+202E"),
        ("moodle", moodle("Bad\x7fCat", "Q1"), "U+007F"),
    ],
)
def test_a_category_name_is_cleaned_with_a_note(
    course: Course, fmt: str, data: bytes, removed: str
) -> None:
    report = interchange_import(course=course, fmt=fmt, data=data)
    assert report.skipped == []
    assert course.topics.get().title == "BadCat"
    (note,) = notes_of(report, "q1")
    assert note.startswith("the category name 'Bad")
    assert removed in note
    assert "removed" in note


@pytest.mark.parametrize(
    ("fmt", "data", "removed"),
    [
        ("gift", gift("Sky", "Q\x1b1"), "U+001B"),
        ("moodle", moodle("Sky", "Q\u009b1"), "U+009B"),
        ("moodle", moodle("Sky", "Q\u2066\u20691"), "U+2066, U+2069"),
    ],
)
def test_a_question_name_is_cleaned_with_a_note(
    course: Course, fmt: str, data: bytes, removed: str
) -> None:
    report = interchange_import(course=course, fmt=fmt, data=data)
    assert report.skipped == []
    question = course.questions.get()
    assert question.title == "Q1"
    (note,) = notes_of(report, question.slug)
    assert note.startswith("its name 'Q")
    assert removed in note


def test_a_qti_title_is_cleaned_with_a_note(course: Course) -> None:
    item = (
        '<assessmentItem identifier="sky" title="Sky\u202e blue">'
        '<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">'
        "<correctResponse><value>T</value></correctResponse></responseDeclaration>"
        '<itemBody><p>Is the sky blue?</p><choiceInteraction responseIdentifier="RESPONSE">'
        '<simpleChoice identifier="T">Yes</simpleChoice>'
        '<simpleChoice identifier="F">No</simpleChoice>'
        "</choiceInteraction></itemBody></assessmentItem>"
    ).encode()
    report = interchange_import(course=course, fmt="qti", data=item)
    assert course.questions.get().title == "Sky blue"
    assert any("U+202E" in note for note in notes_of(report, "sky"))


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (moodle("Bad\x01Cat", "Q1"), "line 1, column 61 holds the control character U+0001"),
        (
            moodle("Sky", "Q1").replace(b"Q1", b"Q\x1b1"),
            "line 2, column 41 holds the control character U+001B",
        ),
        (moodle("Bad&#1;Cat", "Q1"), "line 1, column 61 holds the control character U+0001"),
        (moodle("Bad&#x1B;Cat", "Q1"), "holds the control character U+001B"),
    ],
)
def test_xml_holding_a_c0_control_character_is_refused_at_its_place(
    course: Course, data: bytes, where: str
) -> None:
    with pytest.raises(InterchangeRefused) as caught:
        interchange_import(course=course, fmt="moodle", data=data)
    assert where in caught.value.message
    assert "Bad" in caught.value.message or "Q" in caught.value.message
    assert not course.topics.exists()


@pytest.mark.parametrize(
    ("fmt", "file", "name"),
    [
        ("gift", gift, "Bad\x01Cat"),
        ("gift", gift, "Bad\x1b\x1bCat"),
        ("moodle", moodle, "Bad\x7fCat"),
        ("moodle", moodle, "Bad\x7f\u202eCat"),
    ],
)
def test_a_category_slug_is_made_from_the_cleaned_name(
    course: Course, fmt: str, file: Callable[[str, str], bytes], name: str
) -> None:
    interchange_import(course=course, fmt=fmt, data=file(name, "Q1"))
    topic = course.topics.get()
    assert (topic.slug, topic.title) == ("badcat", "BadCat")


@pytest.mark.parametrize(
    ("fmt", "file", "name"),
    [("gift", gift, "Тема\x01"), ("moodle", moodle, "Тема\u202e"), ("moodle", moodle, "Те\x7fма")],
)
def test_names_that_differ_only_in_removed_characters_are_one_topic_of_one_slug(
    fmt: str, file: Callable[[str, str], bytes], name: str
) -> None:
    clean, dirty = make_course(slug="clean"), make_course(slug="dirty")
    interchange_import(course=clean, fmt=fmt, data=file("Тема", "Q1"))
    interchange_import(course=dirty, fmt=fmt, data=file(name, "Q1"))
    interchange_import(course=dirty, fmt=fmt, data=file("Тема", "Q2"))
    topic = dirty.topics.get()
    assert topic.title == "Тема"
    assert topic.slug == clean.topics.get().slug
    assert sorted(topic.questions.values_list("slug", flat=True)) == ["q1", "q2"]

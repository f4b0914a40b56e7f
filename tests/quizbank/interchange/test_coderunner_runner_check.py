"""A CodeRunner python3 question imported from Moodle XML is gradable: exported as a bank
folder, `manage.py runner_check` grades its reference full marks and its known-wrong
solution below, through the sandbox. CodeRunner questions our harness cannot grade are
reported at import instead of being stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizbank.services.bank_export import bank_export
from quizbank.services.interchange import interchange_import
from tests.quizbank.factories import make_course
from tests.quizbank.interchange.helpers import THIRD_PARTY, import_file, skipped_reasons
from tests.runner.harness.helpers import run_check

pytestmark = pytest.mark.django_db
CODERUNNER = THIRD_PARTY / "moodle_xml/moodle-qtype_coderunner"


def test_an_imported_coderunner_question_passes_runner_check(tmp_path: Path) -> None:
    course = make_course(slug="coderunner")
    report = import_file(course, "moodle", CODERUNNER / "simpledemoquestions.xml")
    assert [question.type for question in report.questions] == ["code"]
    bank_export(course=course, path=tmp_path / "bank")
    out, err, code = run_check(tmp_path / "bank")
    assert (code, err) == (0, "")
    assert "reference 1.00, wrong_returns_none.py 0.00" in out
    assert "1 code questions checked, 0 problems" in out


def test_a_function_that_prints_instead_of_returning_is_reported_not_stored() -> None:
    course = make_course(slug="coderunner")
    corpus = (CODERUNNER / "simpledemoquestions.xml").read_text(encoding="utf-8")
    returning = "    '''The generic sqr function'''\n    return n * n</answer>"
    assert returning in corpus
    printing = corpus.replace(returning, "    print(n * n)</answer>")
    report = interchange_import(course=course, fmt="moodle", data=printing.encode())
    assert report.questions == []
    reasons = skipped_reasons(report)
    [reason] = [why for where, why in reasons.items() if "'Python function: sqr'" in where]
    assert reason == (
        "the answer's sqr returns nothing (it prints): the bank grades what a function "
        "returns, so this question could never be graded"
    )
    assert not course.questions.exists()


def test_programs_reading_standard_input_are_reported_as_ungradable() -> None:
    course = make_course(slug="coderunner")
    report = import_file(course, "moodle", CODERUNNER / "simpledemoquestions.xml")
    reasons = skipped_reasons(report)
    [welcome] = [why for where, why in reasons.items() if "welcoming messages" in where]
    assert welcome == "test 1 reads standard input"

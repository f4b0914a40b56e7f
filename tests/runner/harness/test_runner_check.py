"""`manage.py runner_check` on a tiny bank, graded through runner.api.grade (the sandbox)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from runner.bankfiles import BankFileError, load_code_question

QUESTION = """type: code
title: Double
prompt: Double it.
entry_point: double
cases:
  - name: three values
    args:
      - {tensor: [1.0, 2.0, 3.0]}
  - name: random
    seed: 4
    args:
      - {random: [5, 2]}
"""
REFERENCE = "def double(x):\n    return x * 2\n"
WRONG = "# Adds instead of multiplying.\ndef double(x):\n    return x + 2\n"


def make_bank(root: Path, question: str = QUESTION, wrong: str = WRONG) -> Path:
    bank = root / "bank"
    folder = bank / "basics" / "double"
    folder.mkdir(parents=True)
    (bank / "bank.yaml").write_text(
        "course: {slug: b, title: B}\ntopics: [{slug: basics, title: Basics}]\n"
    )
    (folder / "question.yaml").write_text(question)
    (folder / "reference.py").write_text(REFERENCE)
    (folder / "wrong_add.py").write_text(wrong)
    (bank / "basics" / "other.yaml").write_text("type: true_false\n")
    return bank


def run_check(bank: Path) -> tuple[str, str, int]:
    out, err = StringIO(), StringIO()
    try:
        call_command("runner_check", str(bank), stdout=out, stderr=err)
    except SystemExit as stop:
        return out.getvalue(), err.getvalue(), int(stop.code or 0)
    return out.getvalue(), err.getvalue(), 0


def test_a_good_bank_passes_with_a_line_per_question(tmp_path: Path) -> None:
    out, _err, code = run_check(make_bank(tmp_path))
    assert code == 0
    assert "ok   basics/double: reference 1.00, wrong_add.py 0.00" in out
    assert "1 code questions checked, 0 problems" in out


def test_a_wrong_solution_that_scores_full_marks_fails_the_check(tmp_path: Path) -> None:
    out, err, code = run_check(make_bank(tmp_path, wrong="def double(x):\n    return x + x\n"))
    assert code == 1
    assert "FAIL basics/double" in out
    assert "basics/double: wrong_add.py scored 1.00" in err


def test_an_invalid_case_names_file_line_and_field(tmp_path: Path) -> None:
    broken = QUESTION.replace("{random: [5, 2]}", "{random: [5, 2], dtype: float8}")
    bank = make_bank(tmp_path, question=broken)
    _out, err, code = run_check(bank)
    assert code == 1
    assert f"{bank}/basics/double/question.yaml:12 cases[1].args[0].dtype: unknown dtype" in err


def test_a_question_without_wrong_solutions_is_refused(tmp_path: Path) -> None:
    bank = make_bank(tmp_path)
    (bank / "basics" / "double" / "wrong_add.py").unlink()
    with pytest.raises(BankFileError, match="at least one wrong_"):
        load_code_question(bank / "basics" / "double" / "question.yaml")

"""`manage.py runner_check` on a tiny bank, graded through runner.worker.grade (the sandbox)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management.base import CommandError

from runner import api
from runner.bankfiles import BankFileError, load_code_question
from runner.contract import solution_files, solution_problem
from tests.runner.harness.helpers import run_check

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


CORRECT = "# Adds x to itself.\ndef double(x):\n    return x + x\n"


def make_bank(
    root: Path, question: str = QUESTION, wrong: str = WRONG, correct: str | None = None
) -> Path:
    bank = root / "bank"
    folder = bank / "basics" / "double"
    folder.mkdir(parents=True)
    (bank / "bank.yaml").write_text(
        "course: {slug: b, title: B}\ntopics: [{slug: basics, title: Basics}]\n"
    )
    (folder / "question.yaml").write_text(question)
    (folder / "reference.py").write_text(REFERENCE)
    (folder / "wrong_add.py").write_text(wrong)
    if correct is not None:
        (folder / "correct_sum.py").write_text(correct)
    (bank / "basics" / "other.yaml").write_text("type: true_false\n")
    return bank


def test_a_good_bank_passes_with_a_line_per_question(tmp_path: Path) -> None:
    out, _err, code = run_check(make_bank(tmp_path))
    assert code == 0
    assert "ok   basics/double: reference 1.00, wrong_add.py 0.00" in out
    assert "1 code questions checked, 0 problems" in out


@pytest.mark.parametrize("part", ["basics", "basics/double"])
def test_a_topic_or_a_question_folder_is_checked_alone(tmp_path: Path, part: str) -> None:
    out, _err, code = run_check(make_bank(tmp_path) / part)
    assert code == 0
    assert "1 code questions checked, 0 problems" in out


def test_the_device_option_grades_every_question_there(tmp_path: Path) -> None:
    """`--device cuda` judges the bank on the GPU; on a host without one every job is refused
    as a GPU worker's would be, and the check fails instead of passing on the CPU."""
    bank = make_bank(tmp_path)
    out, _err, code = run_check(bank, "--device", "cpu")
    assert (code, "1 code questions checked, 0 problems" in out) == (0, True)
    out, err, code = run_check(bank, "--device", "cuda")
    if code == 0:
        pytest.skip("this host has a CUDA device: the bank passed on it")
    assert "reference 0.00 (internal)" in out
    assert "no CUDA device" in err


def test_a_folder_without_code_questions_is_an_error_not_an_empty_pass(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no code question"):
        run_check(tmp_path)


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


def test_a_correct_alternative_is_graded_beside_the_reference(tmp_path: Path) -> None:
    out, _err, code = run_check(make_bank(tmp_path, correct=CORRECT))
    assert code == 0
    assert "ok   basics/double: reference 1.00, correct_sum.py 1.00, wrong_add.py 0.00" in out


def test_a_correct_alternative_below_full_marks_fails_the_check(tmp_path: Path) -> None:
    halves = "def double(x):\n    return x * 2 if x.dim() == 1 else x / 2\n"
    out, err, code = run_check(make_bank(tmp_path, correct=halves))
    assert code == 1
    assert "FAIL basics/double: reference 1.00, correct_sum.py 0.50" in out
    assert "basics/double: correct_sum.py scored 0.50 (ok: 1 of 2 checks passed" in err


def test_a_correct_alternative_that_does_not_run_fails_the_check(tmp_path: Path) -> None:
    broken = "def double(x):\n    return x.twice()\n"
    _out, err, code = run_check(make_bank(tmp_path, correct=broken))
    assert code == 1
    assert "basics/double: correct_sum.py scored 0.00" in err
    assert "'Tensor' object has no attribute 'twice'" in err


def test_a_wrong_solution_caught_only_by_a_hidden_case_fails_the_check(tmp_path: Path) -> None:
    hidden = QUESTION.replace("  - name: random\n", "  - name: random\n    hidden: true\n")
    right_on_vectors = "def double(x):\n    return x * 2 if x.dim() == 1 else x * 3\n"
    out, err, code = run_check(make_bank(tmp_path, question=hidden, wrong=right_on_vectors))
    assert code == 1
    assert "FAIL basics/double: reference 1.00, wrong_add.py 0.50" in out
    assert "wrong_add.py is caught only by hidden cases (random)" in err


def test_a_wrong_solution_that_ends_internal_is_a_failure_of_the_bank(tmp_path: Path) -> None:
    bank = make_bank(tmp_path)
    vectors_only = "def double(x):\n    assert x.dim() == 1, 'vectors only'\n    return x * 2\n"
    (bank / "basics" / "double" / "reference.py").write_text(vectors_only)
    out, err, code = run_check(bank)
    assert code == 1
    assert "FAIL basics/double: reference 0.00 (internal), wrong_add.py 0.00 (internal)" in out
    assert "basics/double: wrong_add.py ended internal (the reference solution failed" in err


def test_a_wrong_solution_refused_or_failing_a_visible_case_passes() -> None:
    visible = api.CaseResult(name="one", passed=False, weight=1.0, message="shape differs")
    hidden = api.CaseResult(name="two", passed=False, weight=1.0, hidden=True)
    graded = api.GradingResult(job_id="j", status=api.Status.OK, score=0.0, cases=[visible, hidden])
    forbidden = api.GradingResult(job_id="j", status=api.Status.FORBIDDEN, score=0.0)
    assert solution_problem("wrong_shape.py", graded) == ""
    assert solution_problem("wrong_shape.py", forbidden) == ""
    assert solution_problem("reference.py", forbidden).startswith("scored 0.00 (forbidden")


def test_the_solutions_are_the_reference_then_the_correct_then_the_wrong_files() -> None:
    files = {
        "wrong_b.py": "",
        "generate.py": "",
        "correct_z.py": "",
        "notes.md": "",
        "wrong_a.py": "",
        "reference.py": "",
        "wrong_.py": "",
    }
    assert list(solution_files(files)) == [
        "reference.py",
        "correct_z.py",
        "wrong_a.py",
        "wrong_b.py",
    ]


def test_a_misnamed_solution_fails_the_check_instead_of_being_skipped(tmp_path: Path) -> None:
    """`wrong_no-max.py` is no solution name (the bank import refuses it too): left out, a
    bank whose mistakes are all misnamed would pass with nothing checked."""
    bank = make_bank(tmp_path)
    (bank / "basics" / "double" / "wrong_no-max.py").write_text("def double(x):\n    return x\n")
    out, err, code = run_check(bank)
    assert code == 1
    assert "wrong_no-max.py: not correct_<name>.py or wrong_<name>.py" in err

"""`manage.py runner_check [BANK_PATH]`: every code question's solutions grade as labelled.

The reference and every correct_*.py must score 1.0 with status ok; every
wrong_*.py must score below 1.0, be graded (never end `internal`) and fail
at least one visible case, so a student making that mistake is told what it
is. Prints one line per question; exits 1 with the list of failures
otherwise. Needs no database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from runner import types, worker
from runner.bankfiles import CodeQuestion, load_code_questions

DEFAULT_BANK = "fixtures/banks/pytorch-fundamentals"


def check_question(question: CodeQuestion) -> tuple[list[str], list[str]]:
    """(score notes, failures) for one question, graded through runner.types.grade."""
    reference = _grade(question, "reference.py", question.reference_source)
    notes, failures = [_note("reference", reference)], _correct_failures("reference.py", reference)
    for name, source in question.correct_sources.items():
        result = _grade(question, name, source)
        notes.append(_note(name, result))
        failures.extend(_correct_failures(name, result))
    for name, source in question.wrong_sources.items():
        result = _grade(question, name, source)
        notes.append(_note(name, result))
        failure = wrong_failure(result)
        if failure:
            failures.append(f"{name} {failure}")
    return notes, failures


def _correct_failures(name: str, result: types.GradingResult) -> list[str]:
    if result.status == types.Status.OK and result.score >= 1.0:
        return []
    return [f"{name} scored {result.score:.2f} ({_why(result)})"]


def wrong_failure(result: types.GradingResult) -> str:
    """Why a known-wrong solution's result fails the bank, or "" when the bank caught it."""
    if result.status == types.Status.INTERNAL:
        return f"ended internal ({result.message}): a known-wrong solution must be graded"
    if result.score >= 1.0:
        return "scored 1.00 (a known-wrong solution must score below 1)"
    failed = [case for case in result.cases if not case.passed]
    if result.status == types.Status.OK and failed and all(case.hidden for case in failed):
        names = ", ".join(case.name for case in failed)
        return f"is caught only by hidden cases ({names}); a visible case must catch it too"
    return ""


def _grade(question: CodeQuestion, name: str, source: str) -> types.GradingResult:
    return worker.grade(question.job(source, f"check-{question.slug}-{name}"))


def _note(label: str, result: types.GradingResult) -> str:
    status = "" if result.status == types.Status.OK else f" ({result.status})"
    return f"{label} {result.score:.2f}{status}"


def _why(result: types.GradingResult) -> str:
    failed = [case.message for case in result.cases if not case.passed]
    detail = "; ".join(message for message in failed[:3] if message)
    return f"{result.status}: {result.message}" + (f"; {detail}" if detail else "")


class Command(BaseCommand):
    help = (
        "Check that every code question's reference and correct_*.py score 1.0 and each "
        "wrong_*.py below 1.0, caught by a visible case."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("bank", nargs="?", default=DEFAULT_BANK, help="bank folder")

    def handle(self, *args: Any, **options: Any) -> None:
        bank = Path(options["bank"])
        if not (bank / "bank.yaml").is_file() and not bank.is_dir():
            raise CommandError(f"{bank}: not a bank folder")
        questions, problems = load_code_questions(bank)
        for question in questions:
            notes, failures = check_question(question)
            where = f"{question.folder.parent.name}/{question.slug}"
            self.stdout.write(f"{'FAIL' if failures else 'ok  '} {where}: {', '.join(notes)}")
            problems.extend(f"{where}: {failure}" for failure in failures)
        self.stdout.write(f"{len(questions)} code questions checked, {len(problems)} problems")
        if problems:
            self.stderr.write("\n".join(problems))
            raise SystemExit(1)

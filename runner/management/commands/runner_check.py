"""`manage.py runner_check [BANK_PATH]`: every code question's solutions grade as labelled.

The reference must score 1.0 and every wrong_*.py below 1.0. Prints one line
per question; exits 1 with the list of failures otherwise. Needs no database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from runner import api
from runner.bankfiles import CodeQuestion, load_code_questions

DEFAULT_BANK = "fixtures/banks/pytorch-fundamentals"


def check_question(question: CodeQuestion) -> tuple[list[str], list[str]]:
    """(score notes, failures) for one question, graded through runner.api.grade."""
    notes, failures = [], []
    reference = api.grade(question.job(question.reference_source, f"check-{question.slug}-ref"))
    notes.append(f"reference {reference.score:.2f}")
    if reference.status != api.Status.OK or reference.score < 1.0:
        failures.append(f"reference.py scored {reference.score:.2f} ({_why(reference)})")
    for name, source in question.wrong_sources.items():
        result = api.grade(question.job(source, f"check-{question.slug}-{name}"))
        notes.append(f"{name} {result.score:.2f}")
        if result.score >= 1.0:
            failures.append(f"{name} scored 1.00 (a known-wrong solution must score below 1)")
    return notes, failures


def _why(result: api.GradingResult) -> str:
    failed = [case.message for case in result.cases if not case.passed]
    detail = "; ".join(message for message in failed[:3] if message)
    return f"{result.status}: {result.message}" + (f"; {detail}" if detail else "")


class Command(BaseCommand):
    help = "Check that every code question's reference scores 1.0 and each wrong_*.py below 1.0."
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

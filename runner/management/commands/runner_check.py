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
from runner.contract import REFERENCE_FILE, solution_files, solution_problem

DEFAULT_BANK = "fixtures/banks/pytorch-fundamentals"


def check_question(question: CodeQuestion) -> tuple[list[str], list[str]]:
    """(score notes, failures) for one question, graded through runner.types.grade."""
    sources = {REFERENCE_FILE: question.reference_source}
    sources.update(question.correct_sources)
    sources.update(question.wrong_sources)
    notes, failures = [], []
    for name, source in solution_files(sources).items():
        result = worker.grade(question.job(source, f"check-{question.slug}-{name}"))
        status = "" if result.status == types.Status.OK else f" ({result.status})"
        label = "reference" if name == REFERENCE_FILE else name
        notes.append(f"{label} {result.score:.2f}{status}")
        problem = solution_problem(name, result)
        if problem:
            failures.append(f"{name} {problem}")
    return notes, failures


class Command(BaseCommand):
    help = (
        "Check that every code question's reference and correct_*.py score 1.0 and each "
        "wrong_*.py below 1.0, caught by a visible case."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "bank", nargs="?", default=DEFAULT_BANK, help="a bank, one of its topics or a question"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        bank = Path(options["bank"])
        if not (bank / "bank.yaml").is_file() and not bank.is_dir():
            raise CommandError(f"{bank}: not a folder")
        questions, problems = load_code_questions(bank)
        if not questions and not problems:
            raise CommandError(f"{bank}: no code question (TOPIC/SLUG/question.yaml) in it")
        for question in questions:
            notes, failures = check_question(question)
            where = f"{question.folder.parent.name}/{question.slug}"
            self.stdout.write(f"{'FAIL' if failures else 'ok  '} {where}: {', '.join(notes)}")
            problems.extend(f"{where}: {failure}" for failure in failures)
        self.stdout.write(f"{len(questions)} code questions checked, {len(problems)} problems")
        if problems:
            self.stderr.write("\n".join(problems))
            raise SystemExit(1)

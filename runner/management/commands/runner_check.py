"""`manage.py runner_check [BANK_PATH] [--device cuda]`: every code question's solutions grade as
labelled.

The reference and every correct_*.py must score 1.0 with status ok; every
wrong_*.py must score below 1.0, be graded (never end `internal`) and fail
at least one visible case, so a student making that mistake is told what it
is. Prints one line per question; exits 1 with the list of failures
otherwise. Needs no database. `--device` grades every question on that device instead of
its own (`cuda` on a GPU worker's host: the bank's answers judged on the GPU).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from runner import types, worker
from runner.bankfiles import CodeQuestion, load_code_questions
from runner.contract import REFERENCE_FILE, solution_files, solution_problem

DEFAULT_BANK = "fixtures/banks/pytorch-fundamentals"


def check_question(
    question: CodeQuestion, device: types.Device | None = None
) -> tuple[list[str], list[str]]:
    """(score notes, failures) for one question, graded through runner.types.grade (on
    `device` when given, else on the question's own)."""
    sources = {REFERENCE_FILE: question.reference_source}
    sources.update(question.correct_sources)
    sources.update(question.wrong_sources)
    notes, failures = [], []
    for name, source in solution_files(sources).items():
        job = question.job(source, f"check-{question.slug}-{name}")
        if device is not None:
            job = dataclasses.replace(job, device=device)
        result = worker.grade(job)
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
        parser.add_argument(
            "--device",
            choices=[device.value for device in types.Device],
            help="grade every question on this device instead of its own (cuda: on the GPU)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        bank = Path(options["bank"])
        if not (bank / "bank.yaml").is_file() and not bank.is_dir():
            raise CommandError(f"{bank}: not a folder")
        questions, problems = load_code_questions(bank)
        if not questions and not problems:
            raise CommandError(f"{bank}: no code question (TOPIC/SLUG/question.yaml) in it")
        device = types.Device(options["device"]) if options["device"] else None
        for question in questions:
            notes, failures = check_question(question, device)
            where = f"{question.folder.parent.name}/{question.slug}"
            self.stdout.write(f"{'FAIL' if failures else 'ok  '} {where}: {', '.join(notes)}")
            problems.extend(f"{where}: {failure}" for failure in failures)
        self.stdout.write(f"{len(questions)} code questions checked, {len(problems)} problems")
        if problems:
            self.stderr.write("\n".join(problems))
            raise SystemExit(1)

"""`manage.py bank_import PATH [--course SLUG] [--dry-run]`: load a bank folder."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from quizbank.errors import BankInvalid
from quizbank.services.bank_import import bank_import

_PROGRESS_EVERY = 25


class Command(BaseCommand):
    help = "Import a bank folder (docs/bank-format.md). Atomic: any error writes nothing."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="the bank folder (holds bank.yaml)")
        parser.add_argument("--course", dest="course", help="course slug, instead of bank.yaml's")
        parser.add_argument(
            "--dry-run", action="store_true", help="validate and report, write nothing"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        show_progress = options["verbosity"] >= 2 or sys.stderr.isatty()
        try:
            report = bank_import(
                path=options["path"],
                course_slug=options["course"],
                dry_run=options["dry_run"],
                progress=self._progress if show_progress else None,
            )
        except BankInvalid as exc:
            for line in exc.errors:
                self.stderr.write(line)
            raise CommandError(exc.message) from exc
        self.stdout.write(report.summary())

    def _progress(self, stage: str, done: int, total: int) -> None:
        if done == total or done % _PROGRESS_EVERY == 0:
            self.stderr.write(f"  {stage} {done}/{total} questions")

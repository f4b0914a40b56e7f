"""`manage.py bank_import PATH [--course SLUG] [--dry-run] [--format moodle|gift|qti]`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.exceptions import DomainError
from quizbank.errors import BankInvalid
from quizbank.interchange.formats import FORMATS
from quizbank.interchange.limits import max_file_bytes
from quizbank.models import Course
from quizbank.services.bank_import import bank_import
from quizbank.services.interchange import interchange_import

_PROGRESS_EVERY = 25


class Command(BaseCommand):
    help = (
        "Import a bank folder (docs/bank-format.md; atomic: any error writes nothing), or with "
        "--format a Moodle XML, GIFT or QTI file into --course (docs/interchange.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="the bank folder, or the file with --format")
        parser.add_argument("--course", dest="course", help="course slug, instead of bank.yaml's")
        parser.add_argument(
            "--dry-run", action="store_true", help="validate and report, write nothing"
        )
        parser.add_argument(
            "--format",
            choices=("native", *FORMATS),
            default="native",
            help="native (a bank folder, the default), moodle (XML), gift, or qti (item or zip)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["format"] != "native":
            self._interchange(options)
            return
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

    def _interchange(self, options: dict[str, Any]) -> None:
        course = Course.objects.filter(slug=options["course"] or "").first()
        if course is None:
            raise CommandError("--format needs --course SLUG, the slug of an existing course")
        path: Path = options["path"]
        if not path.is_file():
            raise CommandError(f"{path}: not a file")
        if path.stat().st_size > max_file_bytes():
            raise CommandError(f"{path}: over INTERCHANGE_MAX_FILE_BYTES ({max_file_bytes()})")
        try:
            report = interchange_import(
                course=course,
                fmt=options["format"],
                data=path.read_bytes(),
                dry_run=options["dry_run"],
            )
        except DomainError as exc:
            raise CommandError(f"{path}: {exc.message}; nothing was written") from exc
        self.stdout.write(report.summary())

    def _progress(self, stage: str, done: int, total: int) -> None:
        if done == total or done % _PROGRESS_EVERY == 0:
            self.stderr.write(f"  {stage} {done}/{total} questions")

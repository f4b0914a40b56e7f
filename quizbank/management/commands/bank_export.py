"""`manage.py bank_export COURSE PATH [--format moodle|gift|qti] [--quiz SLUG]`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.exceptions import DomainError
from quizbank.interchange.formats import FORMATS
from quizbank.models import Course
from quizbank.services.bank_export import bank_export
from quizbank.services.interchange import interchange_export


class Command(BaseCommand):
    help = (
        "Export a course as a bank folder (docs/bank-format.md) into an empty folder, or with "
        "--format as one Moodle XML, GIFT or QTI 3.0 package file (docs/interchange.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("course", help="the course slug")
        parser.add_argument(
            "path", type=Path, help="an empty or new folder; with --format a new file"
        )
        parser.add_argument(
            "--format", choices=("native", *FORMATS), default="native", help="default: native"
        )
        parser.add_argument("--quiz", help="with --format: only this quiz's fixed questions")

    def handle(self, *args: Any, **options: Any) -> None:
        course = Course.objects.filter(slug=options["course"]).first()
        if course is None:
            raise CommandError(f"no course with the slug {options['course']}")
        path: Path = options["path"]
        if options["format"] != "native":
            self._interchange(course, path, options)
            return
        try:
            written = bank_export(course=course, path=path)
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"{course.slug}: wrote {written} files to {path}")

    def _interchange(self, course: Course, path: Path, options: dict[str, Any]) -> None:
        if path.exists():
            raise CommandError(f"{path} exists; name a new file")
        quiz = None
        if options["quiz"]:
            quiz = course.quizzes.filter(slug=options["quiz"]).first()
            if quiz is None:
                raise CommandError(f"{course.slug} has no quiz {options['quiz']}")
        try:
            exported = interchange_export(course=course, fmt=options["format"], quiz=quiz)
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        path.write_bytes(exported.data)
        for item in exported.skipped:
            self.stderr.write(f"skipped {item.line()}")
        self.stdout.write(
            f"{course.slug}: wrote {path} ({len(exported.skipped)} questions skipped)"
        )

"""`manage.py bank_export COURSE PATH`: write a course's current versions as a bank folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from quizbank.errors import ExportTargetNotEmpty
from quizbank.models import Course
from quizbank.services.bank_export import bank_export


class Command(BaseCommand):
    help = "Export a course as a bank folder (docs/bank-format.md) into an empty folder."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("course", help="the course slug")
        parser.add_argument("path", type=Path, help="an empty or new folder")

    def handle(self, *args: Any, **options: Any) -> None:
        course = Course.objects.filter(slug=options["course"]).first()
        if course is None:
            raise CommandError(f"no course with the slug {options['course']}")
        try:
            written = bank_export(course=course, path=options["path"])
        except ExportTargetNotEmpty as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"{course.slug}: wrote {written} files to {options['path']}")

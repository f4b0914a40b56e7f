"""`manage.py load_demo`: the bank, demo users and demo quizzes for `make run`."""

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from quizbank.errors import BankInvalid
from quizbank.services.demo_data import demo_load


class Command(BaseCommand):
    help = "Load the PyTorch fundamentals bank, the demo users and the demo quizzes."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--file", default="fixtures/demo.yaml", help="demo data file")

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("load_demo creates users with known passwords: DEBUG only.")
        base_dir = Path(settings.BASE_DIR)
        try:
            report = demo_load(path=base_dir / options["file"], base_dir=base_dir)
        except BankInvalid as error:
            raise CommandError("\n".join(error.errors)) from error
        self.stdout.write(report.bank.summary())
        self.stdout.write(f"Demo quizzes: {', '.join(report.quizzes)}")
        self.stdout.write("Demo logins (username / password, role):")
        for login in report.logins:
            self.stdout.write(f"  {login.username:<10} {login.password:<22} {login.role}")

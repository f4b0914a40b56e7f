"""`manage.py runner_run FILE [--json]`: run a file in the sandbox and show what happened."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from runner.types import Limits, RunResult, Status
from runner.worker import execute


def _readable(result: RunResult) -> str:
    lines = [
        f"status:    {result.status.value}",
        f"exit code: {result.exit_code}",
        f"duration:  {result.duration_ms:.1f} ms",
        f"sandboxed: {'yes' if result.sandboxed else 'NO'}",
    ]
    if result.message:
        lines.append(f"message:   {result.message}")
    if result.truncated:
        lines.append("output:    truncated at the limit")
    lines += ["--- stdout ---", result.stdout.rstrip("\n"), "--- stderr ---", result.stderr]
    return "\n".join(lines).rstrip("\n")


class Command(BaseCommand):
    help = "Execute a Python file in the runner's sandbox and print the RunResult."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--json", action="store_true", help="print the RunResult as JSON")
        parser.add_argument("--time", type=float, default=Limits.time_s, help="seconds")
        parser.add_argument("--memory", type=int, default=Limits.memory_mb, help="MB")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"cannot read {path}: {error}") from error
        result = execute(source, Limits(time_s=options["time"], memory_mb=options["memory"]))
        if options["json"]:
            self.stdout.write(json.dumps(result.to_dict(), indent=2))
        else:
            self.stdout.write(_readable(result))
        if result.status != Status.OK:
            raise SystemExit(1)

"""The web tier runs without torch: only the grading workers install it."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Refuse torch and numpy as if they were not installed, then load everything the
# web server loads: settings, every app, every URL and view, the Celery tasks.
PROBE = """
import importlib.abc, sys

class NoTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "numpy"):
            raise ImportError(f"{name} is not installed on the web tier")
        return None

sys.meta_path.insert(0, NoTorch())
import django
django.setup()
from django.core.management import call_command
from django.urls import get_resolver
get_resolver().url_patterns
import config.celery, grading.tasks, runner.tasks, runner.api
call_command("check")
print("web tier loaded without torch")
"""


def test_the_web_tier_loads_and_checks_without_torch() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "true"}
    result = subprocess.run(  # noqa: S603 (our interpreter, fixed probe)
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert "web tier loaded without torch" in result.stdout

"""Production settings fail fast without secrets and pass Django's deployment checks."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    # The browser tests' conftest allows the ORM beside Playwright's loop in this process only.
    ours = ("SECRET_KEY", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE")
    base = {key: value for key, value in os.environ.items() if key not in ours}
    return subprocess.run(  # noqa: S603 (our own manage.py, fixed arguments)
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_production_refuses_to_start_without_a_secret_key() -> None:
    result = manage("check", DEBUG="false")

    assert result.returncode != 0
    assert "Set the SECRET_KEY environment variable" in result.stderr


def test_production_settings_pass_the_deployment_checks() -> None:
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="false",
        SECRET_KEY="a-long-random-production-secret-" + "x7Kq" * 10,
        ALLOWED_HOSTS="vivabank.example",
        SECURE_SSL_REDIRECT="true",
    )

    assert result.returncode == 0, result.stderr

"""Try-it runs and parameter generators go through the same sandbox."""

from pathlib import Path

import pytest

from runner.api import GeneratorFailed, Limits, Status
from runner.supervisor import Supervisor
from runner.worker import execute, run_generator


def test_execute_returns_stdout_and_a_zero_exit(supervisor: Supervisor) -> None:
    result = execute("import torch\nprint(torch.ones(2).sum().item())\n")
    assert result.status == Status.OK
    assert result.exit_code == 0
    assert result.stdout == "2.0\n"
    assert result.sandboxed


def test_execute_shows_the_traceback_of_the_snippet_only(supervisor: Supervisor) -> None:
    result = execute("x = 1\nprint(x / 0)\n")
    assert result.status == Status.ERROR
    assert 'File "<student>", line 2' in result.stderr
    assert "ZeroDivisionError" in result.stderr
    assert "runner/" not in result.stderr


def test_execute_reports_the_exit_code_of_sys_exit(supervisor: Supervisor) -> None:
    result = execute("import sys\nsys.exit(3)\n")
    assert result.status == Status.ERROR
    assert result.exit_code == 3


def test_execute_stops_a_long_run(supervisor: Supervisor) -> None:
    result = execute("while True:\n    pass\n", Limits(time_s=1))
    assert result.status == Status.TIMEOUT


def test_execute_runs_with_an_empty_environment_as_an_unprivileged_user(
    supervisor: Supervisor,
) -> None:
    result = execute(
        "import os\nprint(os.getuid(), sorted(os.environ))\nprint(os.listdir('/proc'))"
    )
    uid, names = result.stdout.splitlines()[0].split(" ", 1)
    assert int(uid) >= 61000
    assert "SECRET_KEY" not in names
    assert "DATABASE_URL" not in names
    assert "'1'" in result.stdout.splitlines()[1]  # only PID 1 of its own namespace


def test_a_generator_returns_its_dict_for_a_seed(supervisor: Supervisor) -> None:
    source = "def generate(rng):\n    return {'n': rng.randint(1, 10**9)}\n"
    first = run_generator(source, 7)
    assert first == run_generator(source, 7)
    assert first != run_generator(source, 8)


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("def generate(rng):\n    return [1]\n", "must return a dict"),
        ("def generate(rng):\n    raise ValueError('bad')\n", "ValueError: bad"),
        ("def generate(rng):\n    while True:\n        pass\n", "did not finish"),
        ("def generate(rng):\n    return {'x': float('nan')}\n", "raised an error"),
    ],
)
def test_a_broken_generator_says_what_went_wrong(
    supervisor: Supervisor, source: str, reason: str
) -> None:
    with pytest.raises(GeneratorFailed, match=reason):
        run_generator(source, 1, Limits(time_s=1))


def test_runner_run_prints_the_run_result_as_json(
    supervisor: Supervisor, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from django.core.management import call_command

    script = tmp_path / "hello.py"
    script.write_text("print('hello from the sandbox')\n")
    call_command("runner_run", str(script), "--json")
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "ok"
    assert result["stdout"] == "hello from the sandbox\n"


def test_runner_run_exits_non_zero_for_a_failing_file(
    supervisor: Supervisor, tmp_path: Path
) -> None:
    from django.core.management import call_command

    script = tmp_path / "boom.py"
    script.write_text("raise SystemExit(4)\n")
    with pytest.raises(SystemExit):
        call_command("runner_run", str(script))


@pytest.mark.parametrize(
    "reply",
    [b"[]", b"null", b'{"exit_code": "0"}', b"[" * 100_000 + b"]" * 100_000, b"\xff"],
    ids=["list", "null", "string code", "deep nesting", "not utf-8"],
)
def test_a_forged_snippet_reply_is_an_error_not_a_crash(
    supervisor: Supervisor, reply: bytes
) -> None:
    # The snippet writes its own frame on the result channel and leaves before the runner does.
    source = (
        "import os, struct\n"
        f"data = {reply!r}\n"
        "os.write(4, b'VBF1' + struct.pack('>Q', len(data)) + data)\n"
        "os._exit(0)\n"
    )
    result = execute(source)
    assert result.status == Status.ERROR
    assert result.message == "the run's reply was not understood"

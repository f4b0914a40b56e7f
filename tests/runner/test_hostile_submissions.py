"""Every hostile or broken answer gets a safe verdict, and the next answer still grades right."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from runner.api import GradingJob, GradingResult, Limits, RunResult, Status
from runner.supervisor import Supervisor
from runner.worker import execute, grade
from tests.runner.conftest import CASES, CORRECT, REFERENCE
from tests.runner.hostile import CALL, HOSTILE, Hostile, body, probe

FAST = {"time_s": 2.0, "memory_mb": 512, "output_kb": 64}


def grade_source(source: str, **limits: float) -> GradingResult:
    job = GradingJob(
        job_id=str(uuid.uuid4()),
        source=source,
        entry_point="f",
        reference_source=REFERENCE,
        cases=CASES,
        limits=Limits(**{**FAST, **limits}),  # type: ignore[arg-type]  # keys are Limits fields
    )
    return grade(job)


def assert_next_job_grades_correctly() -> None:
    result = grade_source(CORRECT)
    assert result.status == Status.OK, result.message
    assert result.score == 1.0


def _texts(result: GradingResult) -> str:
    return " ".join([result.message, *(case.message for case in result.cases)])


def _sandbox_processes(supervisor: Supervisor) -> list[int]:
    """Processes of the slot's uid other than the standby children waiting for their job."""
    assert supervisor.zygote is not None
    supervisor.zygote.collect_ready()
    waiting = supervisor.zygote.standby_pids()
    uid = 61000 + supervisor.slot
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid and int(entry.name) not in waiting:
                    found.append(int(entry.name))
            except FileNotFoundError:
                continue
    return found


def run_source(source: str, **limits: float) -> RunResult:
    """Run `source` as a try-it snippet: no static check stands between it and the sandbox."""
    return execute(source, Limits(**{**FAST, **limits}))  # type: ignore[arg-type]  # Limits fields


def _run_texts(result: RunResult) -> str:
    return " ".join([result.message, result.stdout, result.stderr])


@pytest.mark.parametrize("case", HOSTILE, ids=[h.name for h in HOSTILE])
def test_hostile_code_is_contained_by_the_sandbox(supervisor: Supervisor, case: Hostile) -> None:
    result = run_source(case.source + CALL, **(case.limits or {}))
    assert result.status in case.run_statuses, (result.status, _run_texts(result)[-500:])
    if case.message:
        assert case.message in _run_texts(result), _run_texts(result)[-500:]
    assert_next_job_grades_correctly()


@pytest.mark.parametrize("case", HOSTILE, ids=[h.name for h in HOSTILE])
def test_a_hostile_graded_answer_is_refused_or_gets_a_safe_verdict(
    supervisor: Supervisor, case: Hostile
) -> None:
    result = grade_source(case.source, **(case.limits or {}))
    assert result.status in (*case.statuses, Status.FORBIDDEN), (result.status, _texts(result))
    assert result.score == case.score, _texts(result)
    assert_next_job_grades_correctly()


@pytest.mark.parametrize(
    "reach",
    [
        "import torch.xpu\nreader = torch.xpu.c_void_p.from_address",
        "from torch.xpu import c_void_p as pointer\nreader = pointer.from_address",
        "from torch.cuda.amp.common import find_spec\nreader = find_spec",
        "import enum\nreader = enum.bltns.open",
        "modules = [torch]\nmodules[0].save(torch.ones(1), 'weights.pt')",
        "def patch():\n    hidden.allclose = lambda *args, **kwargs: True\nhidden = torch\npatch()",
        "import functools\nbox = []\nclass Holder:\n    @lambda fn: property(None, fn)\n"
        "    def __globals__(self, value):\n        box.append(value)\n"
        "functools.update_wrapper(Holder(), print, assigned=('__globals__',), updated=())\n",
        "import abc\nGrumpy = abc.ABCMeta('Grumpy', (), dict(__del__=print))",
        "import abc\nu = '_' * 2\nclass Probe(abc.ABC):\n"
        "    match classmethod(lambda c, o: True):\n"
        "        case __subclasshook__:\n            pass\n    match (u + 'globals' + u,):\n"
        "        case __match_args__:\n            pass\nmatch print:\n    case Probe(found):\n"
        "        pass\n",
    ],
    ids=[
        "ctypes by attribute",
        "ctypes by import",
        "importlib",
        "builtins open",
        "torch in a list",
        "torch patched above its alias",
        "builtins through a copying helper",
        "a class factory with a finaliser",
        "attributes by runtime names through a class pattern",
    ],
)
def test_a_graded_answer_reaching_a_refused_module_through_torch_is_refused(
    supervisor: Supervisor, reach: str
) -> None:
    # Raw memory (ctypes), imports or files would let an answer forge the harness's result.
    source = f"import torch\n{reach}\ndef f(x):\n    return torch.tanh(x) * 2\n"
    result = grade_source(source)
    assert result.status == Status.FORBIDDEN, _texts(result)
    assert result.score == 0.0


def test_a_thread_spinning_after_return_does_not_hold_the_job(supervisor: Supervisor) -> None:
    source = (
        "import threading, torch\n"
        "def spin():\n    while True:\n        pass\n"
        "def f(x):\n    threading.Thread(target=spin).start()\n    return torch.tanh(x) * 2\n"
    )
    result = run_source(source + CALL, time_s=10)
    assert result.status == Status.OK, _run_texts(result)
    assert _sandbox_processes(supervisor) == []
    assert_next_job_grades_correctly()


def test_an_orphan_from_setsid_and_a_double_fork_is_gone_after_the_job(
    supervisor: Supervisor,
) -> None:
    source = (
        "import os, time, torch\n"
        "def f(x):\n"
        "    if os.fork() == 0:\n        os.setsid()\n"
        "        if os.fork() == 0:\n            time.sleep(600)\n        os._exit(0)\n"
        "    return torch.tanh(x) * 2\n"
    )
    result = run_source(source + CALL)
    assert result.status == Status.OK, _run_texts(result)
    assert _sandbox_processes(supervisor) == []
    assert_next_job_grades_correctly()


def test_a_del_method_is_refused_in_a_graded_answer(supervisor: Supervisor) -> None:
    source = (
        "import torch\n"
        "class Grumpy:\n    def __del__(self):\n        raise RuntimeError('from __del__')\n"
        "keep = []\n"
        "def f(x):\n    keep.append(Grumpy())\n    Grumpy()\n    return torch.tanh(x) * 2\n"
    )
    result = grade_source(source)
    assert result.status == Status.FORBIDDEN
    assert "a __del__ method (line 3)" in result.message
    assert run_source(source + CALL).status == Status.OK


def test_files_left_in_scratch_and_shm_are_gone_for_the_next_job(supervisor: Supervisor) -> None:
    plant = body(
        "open('/tmp/leak', 'w').write('x')\nopen('/dev/shm/leak', 'w').write('x')\n"
        "open('leak-cwd', 'w').write('x')"
    )
    run_source(plant + CALL)
    look = probe("assert any(os.path.exists(p) for p in ('/tmp/leak', '/dev/shm/leak'))")
    result = run_source(look + CALL)
    assert result.status == Status.ERROR
    assert "blocked: AssertionError" in _run_texts(result)
    assert not Path("/tmp/leak-cwd").exists()


def test_killing_the_supervisor_by_its_host_pid_fails(supervisor: Supervisor) -> None:
    result = run_source(probe(f"os.kill({os.getpid()}, 9)") + CALL)
    assert "blocked: ProcessLookupError" in _run_texts(result)
    assert_next_job_grades_correctly()


def test_reading_the_settings_module_and_the_bank_fails(supervisor: Supervisor) -> None:
    from django.conf import settings

    base = Path(settings.BASE_DIR)
    for path in (base / "config" / "settings.py", base / "fixtures" / "banks", base / ".env"):
        result = run_source(
            probe(
                f"os.listdir({str(path)!r}) if {str(path)!r}.endswith('banks')"
                f" else open({str(path)!r}).read()"
            )
            + CALL
        )
        assert result.status == Status.ERROR
        assert "blocked: FileNotFoundError" in _run_texts(result), _run_texts(result)


def test_answers_are_compiled_without_the_harness_future_imports(supervisor: Supervisor) -> None:
    # The harness modules use `from __future__ import annotations`; an answer must not: its
    # annotations are objects (a dataclass of a try-it run read them as strings and failed).
    result = run_source("def f(x: int) -> None:\n    pass\nprint(f.__annotations__['x'] is int)\n")
    assert result.stdout.strip() == "True", _run_texts(result)
    source = "import torch\ndef f(x: torch.Tensor) -> torch.Tensor:\n    return torch.tanh(x) * 2\n"
    assert grade_source(source).score == 1.0

"""The interpreter's veto (runner/harness/audit.py) in sandboxed children.

These requests go straight to the child, past the static check, as an answer would that found
a way around it: whatever it reached, the escapes themselves are refused while it runs.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from runner.api import GradingJob, Limits, Status
from runner.harness.audit import RUN_TIME_MARK
from runner.harness.results import ChildResult, decode_result
from runner.supervisor import Supervisor
from runner.worker import grade, harness_request
from tests.runner.conftest import CASES, CORRECT, REFERENCE

LIMITS = Limits(time_s=20.0, memory_mb=1024)


def job_of(source: str) -> GradingJob:
    return GradingJob(
        job_id="audit", source=source, entry_point="f", reference_source=REFERENCE, cases=CASES
    )


def run_unchecked(supervisor: Supervisor, source: str, *, audited: bool = True) -> ChildResult:
    """The student's run of `source` on CASES in a sandboxed child, with no static check."""
    request = {**harness_request(job_of(source), role="student", device="cpu"), "audited": audited}
    outcome = supervisor.run({"kind": "harness", "request": request}, LIMITS, device="cpu")
    assert outcome.status == Status.OK, outcome.message
    assert outcome.payload is not None
    return decode_result(outcome.payload)


def answer(body: str) -> str:
    """An answer `f` that first runs `body` (indented under a try) and says how it went."""
    return (
        "import torch\n\n"
        "def f(x):\n"
        "    try:\n" + textwrap.indent(textwrap.dedent(body), " " * 8) + "\n"
        "    except Exception as error:\n"
        "        raise RuntimeError('vetoed: ' + str(error)) from None\n"
        "    return torch.tanh(x) * 2\n"
    )


ESCAPES = {
    "unpickling": """
        import pickle
        pickle.loads(b"cbuiltins\\nprint\\n(Vhi\\ntR.")
    """,
    "writing a file": """
        handle = open("/tmp/planted.py", "w")
    """,
    "a frame": """
        import sys
        sys._getframe(1)
    """,
    "running a string": """
        exec("y = 1")
    """,
    "a process": """
        import os
        os.system("true")
    """,
    "raw memory": """
        import ctypes
        ctypes.string_at(0, 1)
    """,
    "the collector's objects": """
        import gc
        gc.get_objects()
    """,
    "an annotation's source run by typing": """
        import typing
        def g(y: "int"):
            return y
        typing.get_type_hints(g)
    """,
    "a new function object": """
        import types
        types.FunctionType(f.__code__, {})
    """,
    "the answer's code called back by an import": """
        class Name(str):
            def rpartition(self, separator):
                exec("y = 1")
                return str.rpartition(self, separator)
        __import__(Name("vivabank_never_imported.module"))
    """,
}


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_an_escape_is_vetoed_and_recorded(supervisor: Supervisor, name: str) -> None:
    result = run_unchecked(supervisor, answer(ESCAPES[name]))
    [case] = result.cases
    assert case.error is not None
    assert "vetoed" in case.error.message
    assert any(hit.endswith(RUN_TIME_MARK) for hit in case.forbidden), case.forbidden


def test_replacing_the_veto_modules_names_changes_nothing(supervisor: Supervisor) -> None:
    """The hook keeps what it decides with in its closure, not in the module's globals."""
    tamper = """
        import sys
        audit = sys.modules["runner.harness.audit"]
        audit._judge = audit.arm = lambda *args: (lambda *a: False)
        audit.REFUSED = frozenset()
        audit.REFUSED_PREFIXES = ()
        import pickle
        pickle.loads(b"cbuiltins\\nprint\\n(Vhi\\ntR.")
    """
    result = run_unchecked(supervisor, answer(tamper))
    [case] = result.cases
    assert case.error is not None
    assert "pickle.find_class" + RUN_TIME_MARK in case.forbidden


def test_without_the_veto_the_same_escape_runs(supervisor: Supervisor) -> None:
    """The control: what the veto refuses is a real operation in this child."""
    result = run_unchecked(supervisor, answer(ESCAPES["running a string"]), audited=False)
    [case] = result.cases
    assert case.error is None
    assert case.forbidden == []


def test_an_escape_while_the_answer_loads_fails_the_load(supervisor: Supervisor) -> None:
    source = "import pickle\npickle.loads(b'cbuiltins\\nprint\\n(Vhi\\ntR.')\n" + CORRECT
    result = run_unchecked(supervisor, source)
    assert result.load_error is not None
    assert "pickle.find_class" + RUN_TIME_MARK in result.load_error.message


LEGITIMATE = {
    "a named tuple": """
        import typing
        class Pair(typing.NamedTuple):
            first: int
            second: int
        Pair(1, 2)
    """,
    "torch's lazily imported transforms": """
        torch.func.grad(lambda t: (t * t).sum())(torch.ones(3))
        torch.func.vmap(torch.sin)(torch.ones(2, 3))
    """,
    "a module and an optimiser": """
        layer = torch.nn.Linear(4, 2)
        optimiser = torch.optim.Adam(layer.parameters(), lr=0.1)
        layer(torch.ones(3, 4)).sum().backward()
        optimiser.step()
    """,
    "reading the time and a random number": """
        import random, time
        time.perf_counter()
        random.random()
    """,
}


@pytest.mark.parametrize("name", sorted(LEGITIMATE))
def test_what_answers_and_torch_do_for_themselves_is_let_through(
    supervisor: Supervisor, name: str
) -> None:
    result = run_unchecked(supervisor, answer(LEGITIMATE[name]))
    [case] = result.cases
    assert case.error is None, case.error
    assert case.forbidden == []


def test_a_graded_answer_runs_under_the_veto_and_scores_full_marks(supervisor: Supervisor) -> None:
    result = grade(job_of(CORRECT))
    assert (result.status, result.score) == (Status.OK, 1.0), result.message


def test_the_collector_is_off_while_the_hook_judges() -> None:
    """A collection inside the hook would run the answer's __del__ methods unjudged (the
    hook lets its own events through); a fresh interpreter, since a hook stays for good."""
    script = """
import gc
from runner.harness import audit
seen = []
judge_of = audit._judge
def spying(*args):
    judge = judge_of(*args)
    def judged(event, event_args):
        seen.append(gc.isenabled())
        return judge(event, event_args)
    return judged
audit._judge = spying
audit.arm(compile("", "answer.py", "exec"), "answer.py", lambda hit: None)
id(seen)
print(len(seen), any(seen), gc.isenabled())
"""
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, check=True
    )
    judged, collecting_while_judged, collecting_after = done.stdout.split()
    assert int(judged) >= 1
    assert (collecting_while_judged, collecting_after) == ("False", "True")

"""Inside the sandboxed child: run one answer on the requested cases and return one payload.

Import this module in the zygote before sandboxing: the functions the harness
calls are captured at import (`runner.harness.pristine`), so an answer that
monkeypatches torch cannot change what the harness does. No verdict is made
here; the supervisor judges the data.
"""

from __future__ import annotations

import functools
from typing import Any

from runner.harness import audit, pristine
from runner.harness.child_call import run_call_case
from runner.harness.child_train import run_training_case
from runner.harness.context import ChildContext
from runner.harness.encode import Encoder, pack
from runner.harness.guard import Guard, leftover_state
from runner.harness.spec import Case, parse_cases
from runner.harness.spec_values import CaseError
from runner.harness.tb import describe, register_source

ENTRY_FUNCTION = "function"
ENTRY_AUTOGRAD = "autograd_function"


def run_request(request: dict[str, Any]) -> bytes:
    """Run `request["source"]`'s entry point on every case of the request; one record each."""
    role = request.get("role", "student")
    header: dict[str, Any] = {"version": 1, "role": role, "load_error": None}
    header.update(harness_error=None, forbidden=[], cases=[], entry_kind=None)
    try:
        cases = parse_cases(request["cases"])
        device = _device(request.get("device", "cpu"))
        forbidden = list(request.get("forbidden", [])) if role == "student" else []
        guard = Guard(forbidden, audited=bool(request.get("audited", False)))
    except (CaseError, KeyError, TypeError, ValueError) as error:
        header["harness_error"] = f"invalid request: {error}"
        return pack(header, b"")
    encoder = Encoder()
    with guard.installed():
        _run(request, role, cases, ChildContext(_noop, device, guard, encoder, f"<{role}>"), header)
    header["forbidden"] = sorted(set(guard.hits))
    return pack(header, encoder.blob)


def _run(
    request: dict[str, Any], role: str, cases: list[Case], ctx: ChildContext, header: dict[str, Any]
) -> None:
    loaded = load_entry(str(request["source"]), str(request["entry_point"]), ctx, header)
    if loaded is None:
        return
    ctx.entry, header["entry_kind"] = loaded
    for case in cases:
        runner = run_training_case if case.kind == "training" else run_call_case
        header["cases"].append(runner(case, ctx))


def load_entry(
    source: str, entry_point: str, ctx: ChildContext, header: dict[str, Any]
) -> tuple[Any, str] | None:
    """Exec the source in a fresh module: (callable, entry kind), or None with load_error set.

    An `autograd.Function` subclass is called through the `apply` it inherits, even if it
    defines its own.
    """
    if ctx.device == "cuda":
        # CUDA starts lazily, loading its libraries through ctypes, which the veto armed below
        # refuses to anyone: the context is made before the answer loads, and the device count
        # (which seeding asks, and which loads NVML until it is cached) is asked once here.
        pristine.cuda_init()  # type: ignore[no-untyped-call]  # untyped in torch
        pristine.cuda_device_count()
    register_source(ctx.filename, source)
    module = pristine.ModuleType("answer")
    try:
        # dont_inherit: the answer is compiled without this module's `from __future__` flags
        # (annotations as strings broke an answer's dataclass).
        code = pristine.compile_(source, ctx.filename, "exec", dont_inherit=True)
        if ctx.guard.audited:
            audit.arm(code, ctx.filename, ctx.guard.refuse)
        with ctx.guard.watching():
            pristine.exec_(code, module.__dict__)
    except (Exception, SystemExit) as error:  # noqa: BLE001  # any failure of the answer is data
        header["load_error"] = describe(error, ctx.filename)
        return None
    problem = leftover_state()
    if problem is not None:
        header["load_error"] = {"type": "GlobalStateChanged", "message": problem, "traceback": ""}
        return None
    entry: Any = module.__dict__.get(entry_point)
    if pristine.isinstance_(entry, type) and pristine.issubclass_(entry, pristine.Function):
        return functools.partial(pristine.function_apply, entry), ENTRY_AUTOGRAD
    if not pristine.callable_(entry):
        message = f"the answer does not define a function named {entry_point}"
        header["load_error"] = {"type": "NameError", "message": message, "traceback": ""}
        return None
    return entry, ENTRY_FUNCTION


def _device(name: object) -> str:
    if name not in ("cpu", "cuda"):
        raise ValueError(f"device must be cpu or cuda, not {name!r}")
    return str(name)


def _noop(*args: Any, **kwargs: Any) -> None:
    return None

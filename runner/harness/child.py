"""Inside the sandboxed child: run one answer on every case and return one payload.

Import this module in the zygote before sandboxing: it and the modules it
imports capture, at import time, every torch and builtins function the
harness uses, so an answer that monkeypatches torch cannot change what the
harness does. No verdict is made here; the supervisor judges the data.
"""

from __future__ import annotations

import types
from typing import Any

import torch

from runner.harness.child_call import run_call_case
from runner.harness.child_train import run_training_case
from runner.harness.context import ChildContext
from runner.harness.encode import Encoder, pack
from runner.harness.guard import Guard
from runner.harness.spec import Case, parse_cases
from runner.harness.spec_values import CaseError
from runner.harness.tb import describe, register_source

_compile = compile
_exec = exec
_ModuleType = types.ModuleType
_Function = torch.autograd.Function
_isinstance = isinstance
_issubclass = issubclass
_callable = callable


def run_request(request: dict[str, Any]) -> bytes:
    """Run `request["source"]`'s entry point on every case; the payload as bytes."""
    role = request.get("role", "student")
    header: dict[str, Any] = {"version": 1, "role": role, "load_error": None}
    header.update(harness_error=None, forbidden=[], cases=[])
    try:
        cases = parse_cases(request["cases"])
        device = _device(request.get("device", "cpu"))
        forbidden = list(request.get("forbidden", [])) if role == "student" else []
        guard = Guard(forbidden)
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
    entry = _load(str(request["source"]), str(request["entry_point"]), ctx, header)
    if entry is None:
        return
    ctx.entry = entry
    for case in cases:
        runner = run_training_case if case.kind == "training" else run_call_case
        header["cases"].append(runner(case, ctx))


def _load(source: str, entry_point: str, ctx: ChildContext, header: dict[str, Any]) -> Any:
    """Exec the source in a fresh module; the entry point, or None with load_error set."""
    register_source(ctx.filename, source)
    module = _ModuleType("answer")
    try:
        code = _compile(source, ctx.filename, "exec")
        with ctx.guard.watching():
            _exec(code, module.__dict__)  # noqa: S102  # runs inside the sandboxed child only
    except (Exception, SystemExit) as error:  # noqa: BLE001  # any failure of the answer is data
        header["load_error"] = describe(error, ctx.filename)
        return None
    entry: Any = module.__dict__.get(entry_point)
    if _isinstance(entry, type) and _issubclass(entry, _Function):
        return entry.apply
    if not _callable(entry):
        message = f"the answer does not define a function named {entry_point}"
        header["load_error"] = {"type": "NameError", "message": message, "traceback": ""}
        return None
    return entry


def _device(name: object) -> str:
    if name not in ("cpu", "cuda"):
        raise ValueError(f"device must be cpu or cuda, not {name!r}")
    return str(name)


def _noop(*args: Any, **kwargs: Any) -> None:
    return None

"""Inside a sandboxed child of its own: only the timed calls of one efficiency case.

The supervisor takes this child's CPU time and peak memory from the kernel
(the zygote reaps it with wait4), so nothing the answer does here can change
those figures. Each timed call gets fresh inputs from its own seed, so a cache
of earlier results cannot help, and every timed output goes back to be
compared with the reference's. A baseline run (`calls: false`) loads the
source and builds the same inputs without calling, so the supervisor can
subtract what every run pays.
"""

from __future__ import annotations

from typing import Any

from runner.harness import values
from runner.harness.child import load_entry
from runner.harness.context import ChildContext, StudentError
from runner.harness.encode import Encoder, pack
from runner.harness.guard import Guard
from runner.harness.spec import parse_cases
from runner.harness.spec_values import CaseError

SEED_STEP = 1_000_003


def timing_seed(case_seed: int, repeat: int) -> int:
    """The seed of the inputs of timed call `repeat` (never the case's own seed)."""
    return (case_seed + SEED_STEP * (repeat + 1)) % 2**32


def run_timing(request: dict[str, Any]) -> bytes:
    """Time case `request["case"]`: `repeats` calls on fresh inputs, outputs as the payload."""
    header: dict[str, Any] = {"version": 1, "load_error": None, "harness_error": None}
    header.update(error=None, outputs=[])
    try:
        case = parse_cases(request["cases"])[int(request["case"])]
        repeats, calls = int(request["repeats"]), bool(request["calls"])
        device = str(request.get("device", "cpu"))
        forbidden = list(request.get("forbidden", []))
        audited = bool(request.get("audited", False))
    except (CaseError, KeyError, IndexError, TypeError, ValueError) as error:
        header["harness_error"] = f"invalid timing request: {error}"
        return pack(header, b"")
    encoder = Encoder()
    guard = Guard(forbidden, audited=audited)
    ctx = ChildContext(_noop, device, guard, encoder, "<timed>")
    with guard.installed():
        loaded = load_entry(str(request["source"]), str(request["entry_point"]), ctx, header)
        if loaded is not None:
            ctx.entry = loaded[0]
            _timed_calls(ctx, case.args, case.kwargs, case.seed, repeats, calls, header)
    return pack(header, encoder.blob)


def _timed_calls(
    ctx: ChildContext,
    args: list[Any],
    kwargs: dict[str, Any],
    seed: int,
    repeats: int,
    calls: bool,
    header: dict[str, Any],
) -> None:
    for repeat in range(repeats):
        call_seed = timing_seed(seed, repeat)
        built_args, built_kwargs = values.build_values([args, kwargs], call_seed, ctx.device)
        if calls:
            try:
                # The global generators are seeded as for the compared call (the case's seed):
                # only the inputs differ, so torch.initial_seed() cannot tell the runs apart.
                output = ctx.call(built_args, built_kwargs, seed).output
            except StudentError as error:
                header["error"] = error.info
                return
            header["outputs"].append(ctx.encode(output))
            del output
        del built_args, built_kwargs  # before the next inputs are built, in both kinds of run


def _noop(*args: Any, **kwargs: Any) -> None:
    return None

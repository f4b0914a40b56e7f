"""Child side of a `kind: call` case: build inputs, call, gather check data."""

from __future__ import annotations

from typing import Any

from runner.harness.child_checks import CHECKS, fresh_inputs
from runner.harness.context import ChildContext, StudentError
from runner.harness.spec import Case


def new_record(case: Case) -> dict[str, Any]:
    return {
        "name": case.name,
        "error": None,
        "time_s": None,
        "peak_bytes": None,
        "gradcheck": None,
        "efficiency_error": None,
        "retain_graph": None,
        "forbidden": [],
        "values": {},
    }


def run_call_case(case: Case, ctx: ChildContext) -> dict[str, Any]:
    """Run one call case; every outcome, including exceptions, is returned as data."""
    record = ctx.record = new_record(case)
    hits_before = len(ctx.guard.hits)
    inputs = fresh_inputs(case, ctx.device)
    try:
        output, elapsed = ctx.call(*inputs, case.seed)
    except StudentError as error:
        record["error"] = error.info
    else:
        record["time_s"] = elapsed
        record["values"]["output"] = ctx.encode(output)
        if case.has("purity"):
            record["values"]["inputs_after"] = ctx.encode(list(inputs))
        for check in case.checks:
            handler = CHECKS.get(check.kind)
            if handler is not None:
                handler(case, check, ctx, output, inputs)
    record["forbidden"] = sorted(set(ctx.guard.hits[hits_before:]))
    return record

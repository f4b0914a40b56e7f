"""Child side of a `kind: call` case: build inputs, call once, gather what the checks need.

Every property a check judges (purity, graph recording, a kept graph,
gradients) is read from the one call whose output is compared, so an answer
cannot behave well only on the calls it guesses are checks.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from runner.harness import pristine, values
from runner.harness.child_checks import CHECKS, Inputs, fresh_inputs, record_retained_graph
from runner.harness.context import Called, ChildContext, StudentError
from runner.harness.marks import Marked, input_marks, later_backward
from runner.harness.memory import Measured, peak_memory
from runner.harness.spec import PRESET_GRAD, Case
from runner.harness.storages import aliased_inputs, input_reads, shares_storage


def new_record(case: Case) -> dict[str, Any]:
    return {
        "name": case.name,
        "error": None,
        "gradcheck": None,
        "retain_graph": None,
        "graph_recorded": None,
        "peak_bytes": None,
        "input_reads": None,
        "graph_nodes": None,
        "aliased_inputs": None,
        "input_marks": None,
        "second_call_marks": None,
        "forbidden": [],
        "values": {},
    }


def run_call_case(case: Case, ctx: ChildContext) -> dict[str, Any]:
    """Run one call case; every outcome, including exceptions, is returned as data."""
    record = ctx.record = new_record(case)
    hits_before = len(ctx.guard.hits)
    inputs = fresh_inputs(case, ctx.device)
    if case.has("purity"):
        _preset_input_grads(inputs)
    try:
        called, marked = _measured_call(case, ctx, inputs)
    except StudentError as error:
        record["error"] = error.info
    else:
        _gather(case, ctx, called, marked, inputs)
    record["forbidden"] = sorted(set(ctx.guard.hits[hits_before:]))
    return record


def _gather(case: Case, ctx: ChildContext, called: Called, marked: Marked, inputs: Inputs) -> None:
    """What each of the case's checks needs from the compared call, into the case's record."""
    record, output = ctx.record, called.output
    if case.has("fresh_output"):
        record["aliased_inputs"] = aliased_inputs(output, inputs)
    record["values"]["output"] = ctx.encode(output)
    if case.has("purity"):
        record["values"]["inputs_after"] = ctx.encode(list(inputs), with_grads=True)
        record["values"]["rng_after"] = ctx.encode(values.global_rng_states())
        later_backward(ctx, marked, case.seed)
    if case.has("fresh_output"):
        record["values"]["output_reused"] = ctx.encode(_reused_by_next_call(case, ctx, output))
    if case.has("no_graph"):
        record["graph_recorded"] = called.graph_recorded
    if case.has("graph_nodes"):
        record["graph_nodes"] = called.graph_nodes
    if case.has("retain_graph"):
        record_retained_graph(case, ctx, output, inputs)
    for check in case.checks:
        handler = CHECKS.get(check.kind)
        if handler is not None:
            handler(case, check, ctx, output, inputs)


def _reused_by_next_call(case: Case, ctx: ChildContext, output: Any) -> bool | None:
    """Whether a second call's output shares memory with the first's (a buffer the answer keeps
    and refills, so that calling again overwrites a result the caller holds); None when the
    second call failed."""
    try:
        again = ctx.call(*fresh_inputs(case, ctx.device), case.seed).output
    except StudentError:
        return None
    return shares_storage(output, again)


def _measured_call(case: Case, ctx: ChildContext, inputs: Inputs) -> tuple[Called, Marked]:
    """The compared call, recording the peak memory, the input reads and the marks on the
    inputs its checks judge."""
    measuring = case.has("efficiency")
    with (
        input_marks(inputs, marking=case.has("purity")) as marked,
        peak_memory(ctx.device, inputs) if measuring else _unmeasured() as memory,
        input_reads(inputs, counting=case.has("input_reads")) as reads,
    ):
        called = ctx.call(*inputs, case.seed, probe_graph=case.has("no_graph"))
        memory.hold(called.output)
    if measuring:
        ctx.record["peak_bytes"] = memory.peak
    ctx.record["input_reads"] = reads.count
    ctx.record["input_marks"] = marked.marks
    return called, marked


@contextlib.contextmanager
def _unmeasured() -> Iterator[Measured]:
    yield Measured()


def _preset_input_grads(inputs: Any) -> None:
    # A call that runs backward on, or resets the gradients of, the caller's tensors shows here.
    for tensor in pristine.tensors_in(inputs):
        if pristine.requires_grad_of(tensor) and pristine.is_leaf_of(tensor):
            pristine.set_grad(tensor, pristine.mul(pristine.ones_like(tensor), PRESET_GRAD))

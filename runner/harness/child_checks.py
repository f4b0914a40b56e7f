"""Child-side data gathering for each check kind (no verdicts are made here)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import torch

from runner.harness import values
from runner.harness.context import ChildContext, StudentError, bad, error_text
from runner.harness.memory import peak_bytes
from runner.harness.spec import Case, Check

TIMING_REPEATS = 3

_Tensor = torch.Tensor
_backward = torch.autograd.backward
_grad = torch.autograd.grad
_gradcheck = torch.autograd.gradcheck
_ones_like = torch.ones_like
_sum = torch.Tensor.sum
_clone = torch.Tensor.clone
_detach = torch.Tensor.detach
_to = torch.Tensor.to
_requires_grad_ = torch.Tensor.requires_grad_
_is_floating_point = torch.Tensor.is_floating_point
_float64 = torch.float64
_isinstance = isinstance

# The phrase in autograd's error when saved tensors of a graph were already freed.
SECOND_BACKWARD = "backward through the graph a second time"

_GRADCHECK_DEFAULTS = (("eps", 1e-6), ("atol", 1e-5), ("rtol", 1e-3))

Inputs = tuple[list[Any], dict[str, Any]]


def tensors_in(value: Any) -> Iterator[torch.Tensor]:
    """Tensors in a (nested) value, in a fixed order (lists, then dict insertion order)."""
    if _isinstance(value, _Tensor):
        yield value
    elif _isinstance(value, list | tuple):
        for item in value:
            yield from tensors_in(item)
    elif _isinstance(value, dict):
        for item in value.values():
            yield from tensors_in(item)


def fresh_inputs(case: Case, device: str) -> Inputs:
    args, kwargs = values.build_values([case.args, case.kwargs], case.seed, device)
    return args, kwargs


def input_grads(inputs: Inputs) -> list[torch.Tensor | None]:
    return [
        None if t.grad is None else _clone(t.grad) for t in tensors_in(inputs) if t.requires_grad
    ]


def upstream_grads(ctx: ChildContext, roots: list[torch.Tensor], upstream: Any, seed: int) -> Any:
    if upstream in ("sum", "ones"):
        return [_ones_like(t) for t in roots]
    gradient = values.build_values(upstream, seed, ctx.device)
    return [gradient] * len(roots)


def backward(ctx: ChildContext, output: Any, upstream: Any, seed: int) -> None:
    """Backpropagate through the output's tensors that require grad (raises StudentError).

    An output that requires no grad is left alone: a function may run backward
    itself, and the gradients it left on the inputs are what gets compared.
    """
    roots = [t for t in tensors_in(output) if t.requires_grad]
    if not roots:
        return
    gradients = upstream_grads(ctx, roots, upstream, seed)
    ctx.run(lambda: _backward(roots, gradients))


def check_gradients(
    case: Case, check: Check, ctx: ChildContext, output: Any, inputs: Inputs
) -> None:
    ctx_values = ctx.record["values"]
    try:
        backward(ctx, output, check.options.get("upstream", "sum"), case.seed)
    except StudentError as error:
        ctx_values["grads"] = bad(f"backward failed: {error_text(error)}")
        return
    ctx_values["grads"] = ctx.encode(input_grads(inputs))


def check_grad_accumulates(case: Case, check: Check, ctx: ChildContext, *_: Any) -> None:
    inputs = fresh_inputs(case, ctx.device)
    collected = []
    try:
        for _round in range(2):
            output, _elapsed = ctx.call(*inputs, case.seed)
            backward(ctx, output, "sum", case.seed)
            collected.append(input_grads(inputs))
    except StudentError as error:
        ctx.record["values"]["grads_twice"] = bad(f"calling twice failed: {error_text(error)}")
        return
    ctx.record["values"]["grads_once"] = ctx.encode(collected[0])
    ctx.record["values"]["grads_twice"] = ctx.encode(collected[1])


def check_retain_graph(case: Case, check: Check, ctx: ChildContext, *_: Any) -> None:
    """Call afresh, then backpropagate through the output: was its graph still there?

    Gradients go through autograd.grad, so a function's own writes to `.grad`
    do not mix in; they are sent so the supervisor can compare a kept graph.
    """
    inputs = fresh_inputs(case, ctx.device)
    try:
        output, _elapsed = ctx.call(*inputs, case.seed)
    except StudentError as error:
        _graph_fact(ctx, "error", f"calling again failed: {error_text(error)}")
        return
    roots = [t for t in tensors_in(output) if t.requires_grad]
    if not roots:
        _graph_fact(ctx, "no_graph")
        return
    leaves = [t for t in tensors_in(inputs) if t.requires_grad]
    upstream = _case_upstream(case)
    try:
        grads = ctx.run(lambda: _through(ctx, roots, leaves, upstream, case.seed))
    except StudentError as error:
        freed = error.info["type"] == "RuntimeError" and SECOND_BACKWARD in error.info["message"]
        _graph_fact(ctx, "freed" if freed else "error", error_text(error))
        return
    _graph_fact(ctx, "kept")
    ctx.record["values"]["retained_grads"] = ctx.encode(grads)


def _case_upstream(case: Case) -> Any:
    """The upstream gradient of the case's `gradients` check, or `sum` without one."""
    found = case.check("gradients")
    return "sum" if found is None else found.options.get("upstream", "sum")


def _through(
    ctx: ChildContext,
    roots: list[torch.Tensor],
    leaves: list[torch.Tensor],
    upstream: Any,
    seed: int,
) -> list[torch.Tensor | None]:
    gradients = upstream_grads(ctx, roots, upstream, seed)
    if not leaves:
        _backward(roots, gradients)
        return []
    return list(_grad(roots, leaves, gradients, allow_unused=True))


def _graph_fact(ctx: ChildContext, outcome: str, message: str = "") -> None:
    ctx.record["retain_graph"] = {"outcome": outcome, "message": message}


def check_determinism(case: Case, check: Check, ctx: ChildContext, *_: Any) -> None:
    try:
        output, _elapsed = ctx.call(*fresh_inputs(case, ctx.device), case.seed)
    except StudentError as error:
        ctx.record["values"]["rerun"] = bad(f"the second run failed: {error_text(error)}")
        return
    ctx.record["values"]["rerun"] = ctx.encode(output)


def check_efficiency(case: Case, check: Check, ctx: ChildContext, *_: Any) -> None:
    try:
        times = []
        for _round in range(TIMING_REPEATS):
            times.append(ctx.call(*fresh_inputs(case, ctx.device), case.seed, watch=False)[1])
        args, kwargs = fresh_inputs(case, ctx.device)
        peak = ctx.run(lambda: peak_bytes(lambda: ctx.entry(*args, **kwargs), ctx.device))
    except StudentError as error:
        ctx.record["efficiency_error"] = error_text(error)
        return
    ctx.record["time_s"] = min(times)
    ctx.record["peak_bytes"] = int(peak)


def check_gradcheck(case: Case, check: Check, ctx: ChildContext, *_: Any) -> None:
    args, kwargs = _float64_inputs(fresh_inputs(case, ctx.device))
    leaves = [t for t in tensors_in([args, kwargs]) if t.requires_grad]
    function = _substituting(ctx, args, kwargs, leaves)
    eps, atol, rtol = (float(check.options.get(k, d)) for k, d in _GRADCHECK_DEFAULTS)
    try:
        ok = bool(
            ctx.run(lambda: _gradcheck(function, tuple(leaves), eps=eps, atol=atol, rtol=rtol))
        )
        message = "" if ok else "gradcheck failed"
    except StudentError as error:
        ok, message = False, error_text(error).splitlines()[0][:300]
    ctx.record["gradcheck"] = {"ok": ok, "message": message}
    try:
        output = ctx.run(lambda: function(*leaves))
        backward(ctx, output, "sum", case.seed)
        ctx.record["values"]["gradcheck_grads"] = ctx.encode(input_grads((args, kwargs)))
    except StudentError as error:
        ctx.record["values"]["gradcheck_grads"] = bad(f"backward failed: {error_text(error)}")


def _float64_inputs(inputs: Inputs) -> Inputs:
    floats = [t for t in tensors_in(inputs) if _is_floating_point(t)]
    any_grad = any(t.requires_grad for t in floats)
    converted = {
        id(t): _requires_grad_(_to(_detach(t), _float64), t.requires_grad or not any_grad)
        for t in floats
    }
    return _replace(inputs[0], converted), _replace(inputs[1], converted)


def _replace(value: Any, mapping: dict[int, Any]) -> Any:
    if _isinstance(value, _Tensor):
        return mapping.get(id(value), value)
    if _isinstance(value, list):
        return [_replace(item, mapping) for item in value]
    if _isinstance(value, dict):
        return {key: _replace(item, mapping) for key, item in value.items()}
    return value


def _substituting(
    ctx: ChildContext, args: list[Any], kwargs: dict[str, Any], leaves: list[torch.Tensor]
) -> Callable[..., Any]:
    def function(*tensors: torch.Tensor) -> Any:
        mapping = {id(leaf): tensor for leaf, tensor in zip(leaves, tensors, strict=True)}
        return ctx.entry(*_replace(args, mapping), **_replace(kwargs, mapping))

    return function


CHECKS: dict[str, Callable[..., None]] = {
    "gradients": check_gradients,
    "grad_accumulates": check_grad_accumulates,
    "determinism": check_determinism,
    "efficiency": check_efficiency,
    "gradcheck": check_gradcheck,
    "retain_graph": check_retain_graph,
}

"""Child-side data gathering for each check kind (no verdicts are made here)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import torch

from runner.harness import pristine, values
from runner.harness.context import ChildContext, StudentError, bad, error_text
from runner.harness.marks import input_marks
from runner.harness.spec import REFUSED_AFTER_EDIT, Case, Check

# The phrase in autograd's error when saved tensors of a graph were already freed.
SECOND_BACKWARD = "backward through the graph a second time"
# Autograd's message when a tensor kept with ctx.save_for_backward changed after it was saved.
EDITED_SINCE_SAVED = "modified by an inplace operation"
# Autograd's message when an output returned as a view (of a tensor made in forward, say
# `out.view(shape)`) was edited in place: it refuses that backward as it does the above.
EDITED_VIEW_OUTPUT = "is a view and its base or another view of its base has been modified inplace"
# The seed offset of the random upstream gradient the gradcheck's vector-Jacobian product uses.
UPSTREAM_SEED_OFFSET = 7919

_GRADCHECK_DEFAULTS = (("eps", 1e-6), ("atol", 1e-5), ("rtol", 1e-3))

Inputs = tuple[list[Any], dict[str, Any]]


def fresh_inputs(case: Case, device: str) -> Inputs:
    args, kwargs = values.build_values([case.args, case.kwargs], case.seed, device)
    return args, kwargs


def input_grads(inputs: Inputs) -> list[torch.Tensor | None]:
    grads = []
    for tensor in pristine.tensors_in(inputs):
        if pristine.requires_grad_of(tensor):
            grad = pristine.grad_of(tensor)
            grads.append(None if grad is None else pristine.clone(grad))
    return grads


def _added(
    before: list[torch.Tensor | None], after: list[torch.Tensor | None]
) -> list[torch.Tensor | None]:
    """Each input's gradient from one backward: None where it left .grad as it was (no
    gradient reached the input), the new .grad where there was none."""
    added: list[torch.Tensor | None] = []
    for old, new in zip(before, after, strict=True):
        if new is None or old is None:
            added.append(new)
        elif old.shape == new.shape and old.dtype == new.dtype and pristine.equal(old, new):
            added.append(None)
        else:
            added.append(pristine.sub(new, old))
    return added


def _roots(output: Any) -> list[torch.Tensor]:
    return [t for t in pristine.tensors_in(output) if pristine.requires_grad_of(t)]


def upstream_grads(ctx: ChildContext, roots: list[torch.Tensor], upstream: Any, seed: int) -> Any:
    if upstream in ("sum", "ones"):
        return [pristine.ones_like(t) for t in roots]
    gradient = values.build_values(upstream, seed, ctx.device)
    return [gradient] * len(roots)


def backward(ctx: ChildContext, output: Any, upstream: Any, seed: int) -> list[torch.Tensor]:
    """Backpropagate through the output's tensors that require grad (raises StudentError);
    the upstream gradients it passed, as the answer's backward left them.

    An output that requires no grad is left alone: a function may run backward
    itself, and the gradients it left on the inputs are what gets compared.
    """
    roots = _roots(output)
    if not roots:
        return []
    gradients = upstream_grads(ctx, roots, upstream, seed)
    ctx.run(lambda: pristine.backward(roots, gradients))
    return list(gradients)


def check_gradients(
    case: Case, check: Check, ctx: ChildContext, output: Any, inputs: Inputs
) -> None:
    ctx_values = ctx.record["values"]
    before = input_grads(inputs)
    try:
        upstream = backward(ctx, output, check.options.get("upstream", "sum"), case.seed)
    except StudentError as error:
        ctx_values["grads"] = bad(f"backward failed: {error_text(error)}")
        return
    # What the call left in .grad, and what this backward added to it: a student is told the
    # gradient itself (the reference's, over the same inputs), or that none arrived.
    ctx_values["grads_before"] = ctx.encode(before)
    ctx_values["grads"] = ctx.encode(_added(before, input_grads(inputs)))
    # A hand-written backward that edits grad_output in place edits the caller's tensor; one
    # that edits what it saved (the output, say) changes the result the caller holds.
    ctx_values["upstream_after"] = ctx.encode(upstream)
    ctx_values["output_after"] = ctx.encode(output)


def check_grad_accumulates(case: Case, check: Check, ctx: ChildContext, *_: Any) -> None:
    """Two calls, each followed by a backward, on the same inputs; the second call, which
    finds the first's gradients in .grad, is marked (whether it kept the .grad objects)."""
    inputs = fresh_inputs(case, ctx.device)
    collected = []
    try:
        for call in range(2):
            with input_marks(inputs, marking=call == 1) as marked:
                output = ctx.call(*inputs, case.seed).output
            ctx.record["second_call_marks"] = marked.marks
            backward(ctx, output, "sum", case.seed)
            collected.append(input_grads(inputs))
    except StudentError as error:
        failed = bad(f"call {len(collected) + 1} of 2 failed: {error_text(error)}")
        once = ctx.encode(collected[0]) if collected else failed
        ctx.record["values"].update(grads_once=once, grads_twice=failed)
        return
    ctx.record["values"]["grads_once"] = ctx.encode(collected[0])
    ctx.record["values"]["grads_twice"] = ctx.encode(collected[1])


def check_saved_tensors(case: Case, check: Check, ctx: ChildContext, *_: Any) -> None:
    """Backward after the output, then the inputs, were edited in place where autograd does
    not record it.

    A backward that reads the edited tensor from ctx.saved_tensors is refused by autograd
    (the saved tensor's version changed); one that kept it as a plain attribute of ctx
    computes from the edited values. `plain_grads`, without an edit, is what the answer is
    judged by. A copy kept on ctx is out of reach of these edits: `ctx_tensors` names the
    tensors the call's ctx holds as plain attributes.
    """
    upstream, recorded = _case_upstream(case), ctx.record["values"]
    edits: tuple[tuple[str, Callable[[Any, Inputs], list[torch.Tensor]] | None], ...] = (
        ("plain_grads", None),
        ("edited_grads", lambda output, _inputs: _roots(output)),
        ("edited_input_grads", lambda _output, inputs: _floating(inputs)),
    )
    for key, edited in edits:
        inputs = fresh_inputs(case, ctx.device)
        try:
            output = ctx.call(*inputs, case.seed).output
        except StudentError as error:
            recorded[key] = bad(error_text(error))
            continue
        if edited is None:
            recorded["ctx_tensors"] = ctx.encode(_ctx_tensors(output))
        if edited is not None and not _edited_unrecorded(ctx, edited(output, inputs)):
            # A tensor that cannot be written in place (an expanded view, say) cannot be
            # read back edited either: nothing to judge.
            recorded[key] = ctx.encode(REFUSED_AFTER_EDIT)
            continue
        try:
            backward(ctx, output, upstream, case.seed)
        except StudentError as error:
            refused = edited is not None and _edited_since_saved(error)
            recorded[key] = ctx.encode(REFUSED_AFTER_EDIT) if refused else bad(error_text(error))
            continue
        recorded[key] = ctx.encode(input_grads(inputs))


def _ctx_tensors(output: Any) -> list[str]:
    """Where the ctx of each custom Function whose output this is keeps a tensor as a plain
    attribute (`ctx.out`, `ctx.kept[0]`), one level into lists, tuples and dicts."""
    names: list[str] = []
    nodes: list[object] = []
    for root in _roots(output):
        node = pristine.grad_fn_of(root)
        if not pristine.isinstance_(node, pristine.BackwardCFunction) or any(
            node is seen for seen in nodes
        ):
            continue
        nodes.append(node)
        for name, value in pristine.list_(pristine.dict_(pristine.vars_(node)).items()):
            label = name if pristine.type_(name) is str else "..."
            names.extend(_tensors_named(f"ctx.{label}", value))
    return names


def _tensors_named(name: str, value: Any) -> list[str]:
    if pristine.isinstance_(value, pristine.Tensor):
        return [name]
    kind = pristine.type_(value)
    if kind is list or kind is tuple:
        items = pristine.list_(pristine.enumerate_(value))
    elif kind is dict:
        items = pristine.list_(value.items())
    else:
        return []
    return [
        f"{name}[{_key(key)}]" for key, item in items if pristine.isinstance_(item, pristine.Tensor)
    ]


def _key(key: Any) -> str:
    kind = pristine.type_(key)
    return pristine.repr_(key) if kind is str or kind is int else "..."


def _floating(inputs: Inputs) -> list[torch.Tensor]:
    return [t for t in pristine.tensors_in(inputs) if pristine.is_floating_point(t)]


def _edited_since_saved(error: StudentError) -> bool:
    message = error.info["message"]
    return error.info["type"] == "RuntimeError" and (
        EDITED_SINCE_SAVED in message or EDITED_VIEW_OUTPUT in message
    )


def _edited_unrecorded(ctx: ChildContext, tensors: list[torch.Tensor]) -> bool:
    """Change `tensors` in place where autograd does not record it; False if one refuses."""
    try:
        ctx.run(partial(_edit_unrecorded, tensors))
    except StudentError:
        return False
    return True


def _edit_unrecorded(tensors: list[torch.Tensor]) -> None:
    with pristine.no_grad():
        for tensor in tensors:
            pristine.add_(pristine.mul_(tensor, 0.5), 0.25)


def record_retained_graph(case: Case, ctx: ChildContext, output: Any, inputs: Inputs) -> None:
    """Backpropagate through the compared call's output: was its graph still there?

    Gradients go through autograd.grad with retain_graph=True, so a kept graph
    stays usable for the `gradients` check and the function's own writes to
    `.grad` do not mix in; they are sent so the supervisor can compare them.
    """
    roots = _roots(output)
    if not roots:
        _graph_fact(ctx, "no_graph")
        return
    leaves = [t for t in pristine.tensors_in(inputs) if pristine.requires_grad_of(t)]
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
        pristine.backward(roots, gradients, retain_graph=True)
        return []
    found = pristine.autograd_grad(roots, leaves, gradients, retain_graph=True, allow_unused=True)
    return list(found)


def _graph_fact(ctx: ChildContext, outcome: str, message: str = "") -> None:
    ctx.record["retain_graph"] = {"outcome": outcome, "message": message}


def check_determinism(case: Case, check: Check, ctx: ChildContext, *_: Any) -> None:
    try:
        output = ctx.call(*fresh_inputs(case, ctx.device), case.seed).output
    except StudentError as error:
        ctx.record["values"]["rerun"] = bad(f"the second run failed: {error_text(error)}")
        return
    ctx.record["values"]["rerun"] = ctx.encode(output)


def check_gradcheck(case: Case, check: Check, ctx: ChildContext, *_: Any) -> None:
    """torch's gradcheck (its flag is only advisory), then a float64 vector-Jacobian product.

    The product uses a random upstream gradient, so a backward that ignores
    `grad_output` gives other gradients than the reference's; the supervisor
    compares them, which is what the verdict rests on.
    """
    args, kwargs = _float64_inputs(fresh_inputs(case, ctx.device))
    leaves = [t for t in pristine.tensors_in([args, kwargs]) if pristine.requires_grad_of(t)]
    function = _substituting(ctx, args, kwargs, leaves)
    eps, atol, rtol = (float(check.options.get(k, d)) for k, d in _GRADCHECK_DEFAULTS)
    try:
        ok = bool(
            ctx.run(
                lambda: pristine.gradcheck(function, tuple(leaves), eps=eps, atol=atol, rtol=rtol)
            )
        )
        message = "" if ok else "gradcheck failed"
    except StudentError as error:
        ok, message = False, error_text(error).splitlines()[0][:300]
    ctx.record["gradcheck"] = {"ok": ok, "message": message}
    try:
        output = ctx.run(lambda: function(*leaves))
        roots = _roots(output)
        upstream = values.random_like(roots, case.seed + UPSTREAM_SEED_OFFSET)
        if roots:
            ctx.run(lambda: pristine.backward(roots, upstream))
        ctx.record["values"]["gradcheck_grads"] = ctx.encode(input_grads((args, kwargs)))
    except StudentError as error:
        ctx.record["values"]["gradcheck_grads"] = bad(f"backward failed: {error_text(error)}")


def _float64_inputs(inputs: Inputs) -> Inputs:
    floats = [t for t in pristine.tensors_in(inputs) if pristine.is_floating_point(t)]
    any_grad = any(pristine.requires_grad_of(t) for t in floats)
    converted = {
        id(t): pristine.requires_grad_(
            pristine.to(pristine.detach(t), pristine.float64),
            pristine.requires_grad_of(t) or not any_grad,
        )
        for t in floats
    }
    return _replace(inputs[0], converted), _replace(inputs[1], converted)


def _replace(value: Any, mapping: dict[int, Any]) -> Any:
    if pristine.isinstance_(value, pristine.Tensor):
        return mapping.get(id(value), value)
    if pristine.type_(value) is list:
        return [_replace(item, mapping) for item in value]
    if pristine.type_(value) is dict:
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
    "gradcheck": check_gradcheck,
    "saved_tensors": check_saved_tensors,
}

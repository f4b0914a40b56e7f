"""What the compared call left on its inputs that their values do not show.

For each input tensor, in `tensors_in(inputs)` order: the hooks left on it after the call (a
hook that zeroes its gradient spoils every later backward of the caller), whether its
version counter moved (an in-place write, even one that keeps every value, makes a caller's
backward through the tensor refuse), whether its storage, storage offset, size or strides
changed (`x.data = x.data.clone()` keeps the values and the version, but the caller's tensor
no longer shares memory with what it was a view of), how often a gradient was accumulated
into its `.grad` during the call (an answer that runs backward into the caller's `.grad` and
then puts the old one back leaves the values as they were), and, where it had a `.grad`
before the call, whether that same tensor is its `.grad` after it (backward adds into it in
place; `w.grad = w.grad + g` leaves the caller's old `.grad` behind). After the call,
whether a later backward through the input still brings its gradient to `.grad` unchanged: a
hook left on the input's gradient accumulator node (`grad_fn.next_functions`) rather than on
the tensor spoils it as well, and no public PyTorch call lists a node's hooks. The `purity`
judge holds each against the reference's; the `grad_accumulates` judge holds the last
against the reference's over its second call.

The harness counts accumulations with a post-accumulate-grad hook of its own, registered
before the call and removed after it, so it is never among the hooks the call left.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import torch

from runner.harness import pristine, values
from runner.harness.context import ChildContext, StudentError, error_text

# The seed offset of the random upstream gradient of the later backward.
LATER_BACKWARD_SEED_OFFSET = 7927


class Marked:
    """The marks of the call made inside `input_marks`'s block, readable once it has ended;
    `later_backward` completes them."""

    marks: list[dict[str, Any]] | None = None
    tensors: list[torch.Tensor] | None = None  # the inputs, as the call was given them


@contextlib.contextmanager
def input_marks(inputs: Any, *, marking: bool = True) -> Iterator[Marked]:
    """Record the marks the call made inside the block leaves on the inputs (nothing unless
    `marking`, nor when the block raises)."""
    marked = Marked()
    if not marking:
        yield marked
        return
    tensors = marked.tensors = pristine.tensors_in(inputs)
    versions = [pristine.version_of(tensor) for tensor in tensors]
    places = [_place(tensor) for tensor in tensors]
    # Held through the call, so that no storage made during it can take a freed one's address.
    storages = [_storage(tensor) for tensor in tensors]
    grads = [pristine.grad_of(tensor) for tensor in tensors]
    accumulated = [0] * pristine.len_(tensors)
    handles = [
        pristine.register_post_accumulate_grad_hook(tensor, _counter(accumulated, index))
        for index, tensor in enumerate(tensors)
        if pristine.requires_grad_of(tensor) and pristine.is_leaf_of(tensor)
    ]
    try:
        yield marked
    finally:
        for handle in handles:
            pristine.remove_hook(handle)
    marked.marks = [
        {
            "hooks": _hooks_on(tensor),
            "written": pristine.version_of(tensor) != versions[index],
            "moved": _place(tensor) != places[index],
            "accumulated": accumulated[index],
            "grad_kept": None if grads[index] is None else pristine.grad_of(tensor) is grads[index],
            # Until later_backward probes the input.
            "reaches": True,
            "backward_error": None,
        }
        for index, tensor in enumerate(tensors)
    ]
    del storages


def _place(tensor: torch.Tensor) -> tuple[object, ...]:
    """Where the tensor's elements lie: its layout, size and, for a strided tensor, the
    address of its first element, its storage offset and its strides."""
    with pristine.disable_subclass():
        layout, size = pristine.layout_of(tensor), pristine.shape_of(tensor)
        if layout != pristine.strided:
            return (layout, size)
        return (
            layout,
            size,
            pristine.data_ptr(tensor),
            pristine.storage_offset(tensor),
            pristine.stride(tensor),
        )


def _storage(tensor: torch.Tensor) -> object:
    with pristine.disable_subclass():
        if pristine.layout_of(tensor) != pristine.strided:
            return None
        return pristine.untyped_storage(tensor)


def _counter(counts: list[int], index: int) -> Callable[[torch.Tensor], None]:
    def count(tensor: torch.Tensor) -> None:
        counts[index] += 1

    return count


def _hooks_on(tensor: torch.Tensor) -> int:
    hooks = (pristine.backward_hooks_of(tensor), pristine.post_accumulate_hooks_of(tensor))
    return sum(pristine.len_(found) for found in hooks if found is not None)


def later_backward(ctx: ChildContext, marked: Marked, seed: int) -> None:
    """Add to each input's marks whether a backward run after the call, as a caller's would
    be, brings the input's gradient to its `.grad` unchanged (`reaches`), and what that
    backward raised (`backward_error`).

    Run only once everything else purity compares has been recorded: each input's `.grad` is
    set aside for the backward and the same object put back after it.
    """
    if marked.marks is None or marked.tensors is None:
        return
    for mark, tensor in zip(marked.marks, marked.tensors, strict=True):
        if _backward_runs_through(tensor):
            mark["reaches"], mark["backward_error"] = _reaches(ctx, tensor, seed)


def _backward_runs_through(tensor: torch.Tensor) -> bool:
    return (
        pristine.requires_grad_of(tensor)
        and pristine.is_leaf_of(tensor)
        and pristine.is_floating_point(tensor)
        and pristine.layout_of(tensor) == pristine.strided
    )


def _reaches(ctx: ChildContext, tensor: torch.Tensor, seed: int) -> tuple[bool, str | None]:
    kept = pristine.grad_of(tensor)
    pristine.set_grad(tensor, None)
    upstream, error = None, None
    try:
        upstream = ctx.run(partial(_backward, tensor, seed))
    except StudentError as raised:
        error = error_text(raised).splitlines()[0][:300]
    arrived = pristine.grad_of(tensor)
    try:
        pristine.set_grad(tensor, kept)
    except RuntimeError:  # a hook changed the input's size or dtype during the backward
        return False, error or "the input's old .grad no longer fits it after the backward"
    if error is not None:
        return False, error
    return _same(arrived, upstream), None


def _backward(tensor: torch.Tensor, seed: int) -> torch.Tensor:
    """Backpropagate a random gradient to the input through a product, as a caller's loss
    reaches a leaf: through the input's gradient accumulator node and any hook left on it.

    Random, so a hook that passes on only a gradient it could expect of the harness (ones,
    say) still shows spoiling a caller's.
    """
    with pristine.disable_subclass():
        (upstream,) = values.random_like([tensor], seed + LATER_BACKWARD_SEED_OFFSET)
        product = pristine.mul(tensor, pristine.ones_like(upstream))
        pristine.backward([product], [upstream])
    return upstream


def _same(arrived: torch.Tensor | None, upstream: torch.Tensor | None) -> bool:
    if arrived is None or upstream is None or not pristine.isinstance_(arrived, pristine.Tensor):
        return False
    with pristine.disable_subclass():
        return bool(
            pristine.layout_of(arrived) == pristine.strided
            and pristine.device_of(arrived) == pristine.device_of(upstream)
            and pristine.dtype_of(arrived) == pristine.dtype_of(upstream)
            and pristine.shape_of(arrived) == pristine.shape_of(upstream)
            and pristine.equal(arrived, upstream)
        )

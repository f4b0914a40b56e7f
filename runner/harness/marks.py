"""What the compared call left on its inputs that their values do not show.

For each input tensor, in `tensors_in(inputs)` order: the hooks left on it after the call
(a hook that zeroes its gradient spoils every later backward of the caller), whether its
version counter moved (an in-place write, even one that keeps every value, makes a
caller's backward through the tensor refuse), and how often a gradient was accumulated
into its `.grad` during the call (an answer that runs backward into the caller's `.grad`
and then puts the old one back leaves the values as they were). The `purity` judge holds
each against the reference's.

The harness counts accumulations with a post-accumulate-grad hook of its own, registered
before the call and removed after it, so it is never among the hooks the call left.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import torch

from runner.harness import pristine


class Marked:
    """The marks of the call made inside `input_marks`'s block, readable once it has ended."""

    marks: list[dict[str, Any]] | None = None


@contextlib.contextmanager
def input_marks(inputs: Any, *, marking: bool = True) -> Iterator[Marked]:
    """Record the marks the call made inside the block leaves on the inputs (nothing unless
    `marking`, nor when the block raises)."""
    marked = Marked()
    if not marking:
        yield marked
        return
    tensors = pristine.tensors_in(inputs)
    versions = [pristine.version_of(tensor) for tensor in tensors]
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
            "accumulated": accumulated[index],
        }
        for index, tensor in enumerate(tensors)
    ]


def _counter(counts: list[int], index: int) -> Callable[[torch.Tensor], None]:
    def count(tensor: torch.Tensor) -> None:
        counts[index] += 1

    return count


def _hooks_on(tensor: torch.Tensor) -> int:
    hooks = (pristine.backward_hooks_of(tensor), pristine.post_accumulate_hooks_of(tensor))
    return sum(pristine.len_(found) for found in hooks if found is not None)

"""The call's use of its inputs' memory: how often it reads them, and whether it returns them.

`input_reads` counts, under a TorchDispatchMode, the elements of the inputs' storages that
the operators of one call read. Autograd runs a backward's operators under the modes of
the thread that called it, so the answer's own backward passes count too. Views (a chunk,
a transpose, a detach) read nothing, nor do operators that take a tensor only for its
shape, dtype and device (`zeros_like`, `x.new_zeros`). `tolist()` reads its tensor
without an operator, so a TorchFunctionMode beside it counts those reads. A second pass
over the inputs, made to recompute a result the first pass could have kept, reads them
again, however small its pieces and whether or not it records a graph.

`fresh_output` asks which inputs an output shares a storage with: the input itself, a view
of it or its `.detach()` all do.

Both are reported by the child, so they rest on the static policy that keeps answers away
from storages and the harness (see runner/README.md, "The trust rule").
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from runner.harness import pristine


class InputReads(TorchDispatchMode):  # type: ignore[no-untyped-call]  # torch's base is untyped
    """Elements of the inputs' storages that operators read while active."""

    def __init__(self, inputs: Any) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # torch's base is untyped
        self.storages = {_pointer(t) for t in pristine.tensors_in(inputs)} - {0}
        self.count = 0

    def __torch_dispatch__(
        self,
        func: Callable[..., Any],
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = kwargs or {}
        if _reads_data(func):
            for tensor in pristine.tensors_in([list(args), kwargs]):
                if _pointer(tensor) in self.storages:
                    self.count += int(pristine.numel(tensor))
        return func(*args, **kwargs)


class ListReads(TorchFunctionMode):
    """Adds to `reads` the elements of inputs copied out by `tolist()`, which reads its
    tensor's memory directly, never through an operator the dispatch mode sees."""

    def __init__(self, reads: InputReads) -> None:
        super().__init__()
        self.reads = reads

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        if func is torch.Tensor.tolist and args and _pointer(args[0]) in self.reads.storages:
            self.reads.count += int(pristine.numel(args[0]))
        return func(*args, **(kwargs or {}))


class Counted:
    """The count of `input_reads`, readable once its block has ended."""

    count: int | None = None


@contextlib.contextmanager
def input_reads(inputs: Any, *, counting: bool = True) -> Iterator[Counted]:
    """Count the input elements the call made inside the block reads (nothing unless
    `counting`)."""
    counted = Counted()
    if not counting:
        yield counted
        return
    mode = InputReads(inputs)
    with mode, ListReads(mode):
        yield counted
    counted.count = mode.count


def aliased_inputs(output: Any, inputs: Any) -> list[int]:
    """Positions (in `tensors_in(inputs)` order) of the inputs an output tensor shares a
    storage with."""
    returned = {_pointer(t) for t in pristine.tensors_in(output)} - {0}
    return [
        index
        for index, tensor in enumerate(pristine.tensors_in(inputs))
        if _pointer(tensor) in returned
    ]


def shares_storage(first: Any, second: Any) -> bool:
    """Whether a tensor of `first` and a tensor of `second` share a storage."""
    pointers = {_pointer(t) for t in pristine.tensors_in(first)} - {0}
    return any(_pointer(t) in pointers for t in pristine.tensors_in(second))


def _reads_data(func: Any) -> bool:
    if pristine.getattr_(func, "is_view", False):
        return False
    packet = pristine.getattr_(func, "overloadpacket", None)
    name = str(pristine.getattr_(packet, "__name__", ""))
    return not (name.endswith("_like") or name.startswith("new_"))


def _pointer(tensor: torch.Tensor) -> int:
    """The address of the tensor's storage; 0 for a tensor without one (empty, or meta)."""
    with pristine.disable_subclass():
        if pristine.device_of(tensor).type == "meta":
            return 0
        return int(pristine.untyped_storage(tensor).data_ptr())

"""Peak tensor memory of one call, for the efficiency check's memory ratio.

On CUDA the allocator's own peak counter is used. On CPU torch keeps no peak
counter, so a TorchDispatchMode tracks the storages that operations allocate
and when those storages die; the peak of live bytes is a comparable figure for
answer and reference (both measured the same way on the same inputs). It is
reported by the child, so it rests on the static policy that keeps answers
away from the harness (see runner/README.md, "The trust rule"). The kernel's
own figures (a cgroup's peak charge, a child's peak RSS) were tried and are
dominated by the process's own pages: megabytes of noise around the tensors.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from runner.harness import pristine


class PeakMemory(TorchDispatchMode):  # type: ignore[no-untyped-call]  # torch's base is untyped
    """Live bytes of the storages operations allocate while active, and their peak.

    A storage from before the call that an operation writes into, other than the call's
    arguments and their gradients, counts as used from its first write on: an answer that
    made a buffer as it loaded and filled it with `out=` holds that memory as surely as one
    that allocates it in the call."""

    def __init__(self, arguments: Any = ()) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # torch's base is untyped
        self.live: dict[int, int] = {}  # data_ptr -> nbytes, while the storage lives
        self.current = 0
        self.peak = 0
        self.own = {_pointer(t) for t in _with_grads(pristine.tensors_in(arguments))}
        self.borrowed: set[int] = set()

    def __torch_dispatch__(
        self,
        func: Callable[..., Any],
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        for tensor in _written(func, args, kwargs):
            self._borrow(tensor)
        inputs = {_pointer(t) for t in pristine.tensors_in([list(args), kwargs])}
        for tensor in pristine.tensors_in(out):
            if pristine.device_of(tensor).type != "meta":
                self._track(tensor, inputs)
        return out

    def _borrow(self, tensor: torch.Tensor) -> None:
        pointer = _pointer(tensor)
        if pointer == 0 or pointer in self.live or pointer in self.own or pointer in self.borrowed:
            return
        self.borrowed.add(pointer)
        self.current += pristine.untyped_storage(tensor).nbytes()
        self.peak = max(self.peak, self.current)

    def _track(self, tensor: torch.Tensor, inputs: set[int]) -> None:
        pointer = _pointer(tensor)
        if pointer in inputs or pointer == 0 or pointer in self.live:
            return
        storage = pristine.untyped_storage(tensor)
        self.live[pointer] = storage.nbytes()
        self.current += self.live[pointer]
        self.peak = max(self.peak, self.current)
        # On the storage, not the tensor: a storage outlives the tensor that made it through
        # any alias (a view, `.detach()`, `.data`), and torch keeps one Python object per
        # storage for as long as the storage itself lives.
        pristine.finalize(storage, self._release, pointer)

    def _release(self, pointer: int) -> None:
        nbytes = self.live.pop(pointer, None)
        if nbytes is not None:
            self.current -= nbytes


def _with_grads(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    grads = [pristine.grad_of(t) for t in tensors]
    return tensors + [grad for grad in grads if grad is not None]


# Per operator, the (position, name) of the arguments it writes (`out=`, `self` of `add_`).
_WRITES: dict[Any, tuple[tuple[int | None, str], ...]] = {}


def _written(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[torch.Tensor]:
    where = _WRITES.get(func)
    if where is None:
        schema = getattr(func, "_schema", None)
        where = _WRITES[func] = tuple(
            (None if argument.kwarg_only else index, argument.name)
            for index, argument in enumerate(schema.arguments if schema else ())
            if argument.alias_info is not None and argument.alias_info.is_write
        )
    written: list[torch.Tensor] = []
    for index, name in where:
        value = args[index] if index is not None and index < len(args) else kwargs.get(name)
        written.extend(pristine.tensors_in(value))
    return written


def _pointer(tensor: torch.Tensor) -> int:
    return int(pristine.untyped_storage(tensor).data_ptr())


class Measured:
    """The peak bytes counted by `peak_memory`, readable once its block has ended."""

    peak = 0


@contextlib.contextmanager
def peak_memory(device: str, arguments: Any = ()) -> Iterator[Measured]:
    """Count the peak tensor memory allocated inside the block (a call of `arguments`)."""
    measured = Measured()
    if device == "cuda":
        pristine.cuda_reset_peak()
        before = pristine.cuda_allocated()
        yield measured
        measured.peak = int(pristine.cuda_peak() - before)
        return
    tracker = PeakMemory(arguments)
    with tracker:
        yield measured
    measured.peak = tracker.peak

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
    """Live bytes of the storages a call uses, and their peak.

    Every storage an operation reads, writes or returns counts from the moment the call
    first uses it until the storage dies, the call's arguments and their gradients excepted;
    so does a tensor the call returns without any operation. A storage the answer made when
    it loaded (a buffer filled with `out=`, a result worked out in advance) is memory the
    call holds as surely as one it allocates."""

    def __init__(self, arguments: Any = ()) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # torch's base is untyped
        self.live: dict[int, int] = {}  # data_ptr -> nbytes, while the storage lives
        self.current = 0
        self.peak = 0
        self.own = {_pointer(t) for t in _with_grads(pristine.tensors_in(arguments))}

    def __torch_dispatch__(
        self,
        func: Callable[..., Any],
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = kwargs or {}
        self.hold([list(args), kwargs])
        out = func(*args, **kwargs)
        self.hold(out)
        return out

    def hold(self, value: Any) -> None:
        """Count the storages of the tensors in `value` the call has not counted yet."""
        for tensor in pristine.tensors_in(value):
            if pristine.device_of(tensor).type == "meta":
                continue
            pointer = _pointer(tensor)
            if pointer == 0 or pointer in self.live or pointer in self.own:
                continue
            storage = pristine.untyped_storage(tensor)
            self.live[pointer] = storage.nbytes()
            self.current += self.live[pointer]
            self.peak = max(self.peak, self.current)
            # On the storage, not the tensor: a storage outlives the tensor that made it
            # through any alias (a view, `.detach()`, `.data`), and torch keeps one Python
            # object per storage for as long as the storage itself lives.
            pristine.finalize(storage, self._release, pointer)

    def _release(self, pointer: int) -> None:
        nbytes = self.live.pop(pointer, None)
        if nbytes is not None:
            self.current -= nbytes


def _with_grads(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    grads = [pristine.grad_of(t) for t in tensors]
    return tensors + [grad for grad in grads if grad is not None]


def _pointer(tensor: torch.Tensor) -> int:
    return int(pristine.untyped_storage(tensor).data_ptr())


class Measured:
    """The peak bytes counted by `peak_memory`, readable once its block has ended."""

    peak = 0
    tracker: PeakMemory | None = None

    def hold(self, value: Any) -> None:
        """Count what the call returned too (a tensor handed back without any operation)."""
        if self.tracker is not None:
            self.tracker.hold(value)


@contextlib.contextmanager
def peak_memory(device: str, arguments: Any = ()) -> Iterator[Measured]:
    """Count the peak tensor memory of the call of `arguments` made inside the block."""
    measured = Measured()
    if device == "cuda":
        pristine.cuda_reset_peak()
        before = pristine.cuda_allocated()
        yield measured
        measured.peak = int(pristine.cuda_peak() - before)
        return
    measured.tracker = PeakMemory(arguments)
    with measured.tracker:
        yield measured
    measured.peak = measured.tracker.peak
    measured.tracker = None

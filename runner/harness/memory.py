"""Peak tensor memory of one call, for efficiency ratios.

On CUDA the allocator's own peak counter is used. On CPU torch keeps no peak
counter, so a TorchDispatchMode tracks the storages that ops allocate and when
their tensors die; the peak of live bytes is a good, comparable estimate for
student and reference (both are measured the same way on the same inputs).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

_Tensor = torch.Tensor
_finalize = weakref.finalize
_isinstance = isinstance
_storage = torch.Tensor.untyped_storage
_cuda_reset = torch.cuda.reset_peak_memory_stats
_cuda_peak = torch.cuda.max_memory_allocated
_cuda_now = torch.cuda.memory_allocated


class _Tracker(TorchDispatchMode):  # type: ignore[no-untyped-call]  # torch's base is untyped
    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # torch's base is untyped
        self.live: dict[int, list[int]] = {}  # data_ptr -> [nbytes, tensors alive]
        self.current = 0
        self.peak = 0

    def __torch_dispatch__(
        self,
        func: Callable[..., Any],
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        out = func(*args, **(kwargs or {}))
        inputs = {_pointer(t) for t in tree_flatten((args, kwargs))[0] if _isinstance(t, _Tensor)}
        for tensor in tree_flatten(out)[0]:
            if _isinstance(tensor, _Tensor) and tensor.device.type != "meta":
                self._track(tensor, inputs)
        return out

    def _track(self, tensor: torch.Tensor, inputs: set[int]) -> None:
        pointer = _pointer(tensor)
        if pointer in inputs or pointer == 0:
            return
        entry = self.live.get(pointer)
        if entry is None:
            entry = self.live[pointer] = [_storage(tensor).nbytes(), 0]
            self.current += entry[0]
            self.peak = max(self.peak, self.current)
        entry[1] += 1
        _finalize(tensor, self._release, pointer)

    def _release(self, pointer: int) -> None:
        entry = self.live.get(pointer)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] <= 0:
            self.current -= entry[0]
            del self.live[pointer]


def _pointer(tensor: torch.Tensor) -> int:
    return int(_storage(tensor).data_ptr())


def peak_bytes(call: Callable[[], object], device: str) -> int:
    """Run `call` once and return the peak bytes of tensors it allocated."""
    if device == "cuda":
        _cuda_reset()
        before = _cuda_now()
        call()
        return int(_cuda_peak() - before)
    tracker = _Tracker()
    with tracker:
        result = call()
    del result
    return tracker.peak

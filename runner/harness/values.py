"""Build case inputs from their specs, deterministically from the case's seed.

Used in the child (student and reference get identical inputs) and in the
supervisor (to regenerate pristine inputs for the purity check). Torch
functions are captured at import, before any student code can patch them.
"""

from __future__ import annotations

from typing import Any

import torch

from runner.harness import pristine
from runner.harness.spec_values import DTYPES

_DTYPES: dict[str, torch.dtype] = {name: getattr(torch, name) for name in DTYPES}


def seed_everything(seed: int, device: str = "cpu") -> None:
    """Seed torch, Python's random and numpy so both roles see one RNG stream."""
    # Not torch.manual_seed: it formats a stack trace for each uninitialised accelerator, and
    # it calls torch.cuda.manual_seed_all by name, which the guard replaces where a question
    # forbids it. The captured one queues the CUDA seed for when the context is created.
    pristine.cpu_generator.manual_seed(seed)
    if device == "cuda" or pristine.cuda_initialized():  # type: ignore[no-untyped-call]
        pristine.cuda_seed_all(seed)
    pristine.py_seed(seed)
    pristine.np_seed(seed % 2**32)


def global_rng_states() -> list[torch.Tensor]:
    """The states of the global generators an answer can draw from (torch's and Python's
    `random`), to tell whether a call reseeded or drew from either."""
    words = pristine.py_getstate()[1]
    return [pristine.get_rng_state(), pristine.tensor(words, dtype=pristine.int64)]


def same_rng_states(before: list[torch.Tensor], after: list[torch.Tensor]) -> bool:
    return all(pristine.equal(old, new) for old, new in zip(before, after, strict=True))


def dtype_of(name: str) -> torch.dtype:
    return _DTYPES[name]


def build_values(spec: Any, seed: int, device: str = "cpu") -> Any:
    """Build a (nested) value; random tensors draw from one generator seeded by `seed`."""
    generator = pristine.Generator().manual_seed(seed)
    return _build(spec, generator, device)


def random_like(tensors: list[torch.Tensor], seed: int) -> list[torch.Tensor]:
    """Standard normal tensors shaped, typed and placed like `tensors`, drawn in float64 from
    a generator of their own seeded by `seed`."""
    generator = pristine.Generator().manual_seed(seed)
    shapes = [tuple(pristine.shape_of(t)) for t in tensors]
    drawn = [pristine.randn(shape, generator=generator, dtype=pristine.float64) for shape in shapes]
    return [pristine.to(upstream, t) for upstream, t in zip(drawn, tensors, strict=True)]


def _build(spec: Any, generator: torch.Generator, device: str) -> Any:
    if pristine.type_(spec) is list:
        return [_build(item, generator, device) for item in spec]
    if pristine.type_(spec) is not dict:
        return spec
    if "tensor" in spec:
        tensor = pristine.tensor(spec["tensor"], dtype=_DTYPES[spec.get("dtype", "float32")])
        return _finish(tensor, spec, device)
    if "random" in spec:
        return _finish(_random_tensor(spec, generator), spec, device)
    return {key: _build(item, generator, device) for key, item in spec.items()}


def _finish(tensor: torch.Tensor, spec: dict[str, Any], device: str) -> torch.Tensor:
    if device != "cpu":
        tensor = pristine.to(tensor, device)
    if spec.get("contiguous", True) is False:
        tensor = _reversed_layout(tensor)
    if spec.get("requires_grad", False):
        pristine.requires_grad_(tensor, True)
    return tensor


def _random_tensor(spec: dict[str, Any], generator: torch.Generator) -> torch.Tensor:
    shape = tuple(spec["random"])
    distribution = spec.get("distribution", "normal")
    default = "int64" if distribution == "randint" else "float32"
    dtype = _DTYPES[spec.get("dtype", default)]
    if distribution == "randint":
        first, last = int(spec.get("low", 0)), int(spec.get("high", 10))
        sample = pristine.randint(first, last, shape, generator=generator, dtype=pristine.int64)
        return pristine.to(sample, dtype)
    if distribution == "bernoulli":
        probability = pristine.full(shape, float(spec.get("scale", 0.5)), dtype=pristine.float32)
        return pristine.to(pristine.bernoulli(probability, generator=generator), dtype)
    if distribution == "uniform":
        low, high = float(spec.get("low", 0.0)), float(spec.get("high", 1.0))
        sample = pristine.rand(shape, generator=generator, dtype=pristine.float32)
        return pristine.to(pristine.add(pristine.mul(sample, high - low), low), dtype)
    sample = pristine.randn(shape, generator=generator, dtype=pristine.float32)
    return pristine.to(pristine.mul(sample, float(spec.get("scale", 1.0))), dtype)


def _reversed_layout(tensor: torch.Tensor) -> torch.Tensor:
    """The same values stored in reversed axis order, as `x.transpose(0, -1)` of a contiguous
    tensor leaves them: a leaf that `.view()` across its axes refuses."""
    backwards = tuple(range(pristine.dim(tensor) - 1, -1, -1))
    return pristine.permute(pristine.contiguous(pristine.permute(tensor, backwards)), backwards)

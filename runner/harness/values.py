"""Build case inputs from their specs, deterministically from the case's seed.

Used in the child (student and reference get identical inputs) and in the
supervisor (to regenerate pristine inputs for the purity check). Torch
functions are captured at import, before any student code can patch them.
"""

from __future__ import annotations

import random as _random_module
from typing import Any

import numpy as _np
import torch

_DTYPES: dict[str, torch.dtype] = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
    "int32": torch.int32,
    "int64": torch.int64,
    "bool": torch.bool,
}
_Tensor = torch.Tensor
_Generator = torch.Generator
_tensor = torch.tensor
_randn = torch.randn
_rand = torch.rand
_randint = torch.randint
_full = torch.full
_bernoulli = torch.bernoulli
_to = torch.Tensor.to
_mul = torch.Tensor.mul
_add = torch.Tensor.add
_requires_grad_ = torch.Tensor.requires_grad_
_clone = torch.Tensor.clone
_detach = torch.Tensor.detach
_manual_seed = torch.manual_seed
_cpu_generator = torch.default_generator
_cuda_initialized = torch.cuda.is_initialized
_cuda_seed_all = torch.cuda.manual_seed_all
_py_seed = _random_module.seed
_np_seed = _np.random.seed
_isinstance = isinstance
_list = list
_dict = dict


def seed_everything(seed: int, device: str = "cpu") -> None:
    """Seed torch, Python's random and numpy so both roles see one RNG stream."""
    if device == "cuda":
        _manual_seed(seed)  # also queues the CUDA seed for when the context is created
    else:
        # torch.manual_seed would format a stack trace for each uninitialised accelerator.
        _cpu_generator.manual_seed(seed)
        if _cuda_initialized():  # type: ignore[no-untyped-call]  # untyped in torch
            _cuda_seed_all(seed)
    _py_seed(seed)
    _np_seed(seed % 2**32)


def dtype_of(name: str) -> torch.dtype:
    return _DTYPES[name]


def build_values(spec: Any, seed: int, device: str = "cpu") -> Any:
    """Build a (nested) value; random tensors draw from one generator seeded by `seed`."""
    generator = _Generator().manual_seed(seed)
    return _build(spec, generator, device)


def _build(spec: Any, generator: torch.Generator, device: str) -> Any:
    if _isinstance(spec, _list):
        return [_build(item, generator, device) for item in spec]
    if not _isinstance(spec, _dict):
        return spec
    if "tensor" in spec:
        tensor = _tensor(spec["tensor"], dtype=_DTYPES[spec.get("dtype", "float32")])
        return _finish(tensor, spec, device)
    if "random" in spec:
        return _finish(_random_tensor(spec, generator), spec, device)
    return {key: _build(item, generator, device) for key, item in spec.items()}


def _finish(tensor: torch.Tensor, spec: dict[str, Any], device: str) -> torch.Tensor:
    if device != "cpu":
        tensor = _to(tensor, device)
    if spec.get("requires_grad", False):
        _requires_grad_(tensor, True)
    return tensor


def _random_tensor(spec: dict[str, Any], generator: torch.Generator) -> torch.Tensor:
    shape = tuple(spec["random"])
    distribution = spec.get("distribution", "normal")
    default = "int64" if distribution == "randint" else "float32"
    dtype = _DTYPES[spec.get("dtype", default)]
    if distribution == "randint":
        first, last = int(spec.get("low", 0)), int(spec.get("high", 10))
        return _to(_randint(first, last, shape, generator=generator, dtype=torch.int64), dtype)
    if distribution == "bernoulli":
        probability = _full(shape, float(spec.get("scale", 0.5)), dtype=torch.float32)
        return _to(_bernoulli(probability, generator=generator), dtype)
    if distribution == "uniform":
        low, high = float(spec.get("low", 0.0)), float(spec.get("high", 1.0))
        sample = _add(_mul(_rand(shape, generator=generator), high - low), low)
        return _to(sample, dtype)
    sample = _mul(_randn(shape, generator=generator), float(spec.get("scale", 1.0)))
    return _to(sample, dtype)


def copy_values(value: Any) -> Any:
    """A deep copy of built inputs: tensors cloned (keeping requires_grad), containers rebuilt."""
    if _isinstance(value, _Tensor):
        copied = _clone(_detach(value))
        return _requires_grad_(copied, True) if value.requires_grad else copied
    if _isinstance(value, _list):
        return [copy_values(item) for item in value]
    if _isinstance(value, _dict):
        return {key: copy_values(item) for key, item in value.items()}
    return value

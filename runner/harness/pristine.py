"""Every torch and builtin function the harness calls, captured once at import.

The zygote imports this before any answer runs, so an answer that rebinds
`torch.Tensor.detach`, `torch.autograd.grad` or a builtin changes only its own
view. Tensor facts are read through `torch._C.TensorBase`'s descriptors (an
immutable C type), never through attribute lookup, which a tensor subclass's
property or a patched `torch.Tensor` would answer.
"""

from __future__ import annotations

import builtins
import importlib
import json
import linecache
import random
import struct
import traceback
import types
import weakref
from collections.abc import Callable
from typing import Any

import numpy
import torch
import torch.nn.functional
import torch.utils.hooks

_descriptors = torch._C.TensorBase.__dict__

# Reading tensor facts without dispatching to Python code.
requires_grad_of: Callable[[torch.Tensor], bool] = _descriptors["requires_grad"].__get__
is_leaf_of: Callable[[torch.Tensor], bool] = _descriptors["is_leaf"].__get__
grad_of: Callable[[torch.Tensor], torch.Tensor | None] = _descriptors["grad"].__get__
grad_fn_of: Callable[[torch.Tensor], object] = _descriptors["grad_fn"].__get__
shape_of: Callable[[torch.Tensor], torch.Size] = _descriptors["shape"].__get__
dtype_of: Callable[[torch.Tensor], torch.dtype] = _descriptors["dtype"].__get__
device_of: Callable[[torch.Tensor], torch.device] = _descriptors["device"].__get__
layout_of: Callable[[torch.Tensor], torch.layout] = _descriptors["layout"].__get__
set_grad: Callable[[torch.Tensor, torch.Tensor | None], None] = _descriptors["grad"].__set__
version_of: Callable[[torch.Tensor], int] = _descriptors["_version"].__get__
backward_hooks_of: Callable[[torch.Tensor], dict[Any, Any] | None] = _descriptors[
    "_backward_hooks"
].__get__
post_accumulate_hooks_of: Callable[[torch.Tensor], dict[Any, Any] | None] = _descriptors[
    "_post_accumulate_grad_hooks"
].__get__

Tensor = torch.Tensor
Generator = torch.Generator
Function = torch.autograd.Function
# The inherited `apply`, called with the answer's class: an answer that overrides `apply`
# would otherwise be graded on whatever it computes there, its forward and backward unused.
function_apply: Callable[..., Any] = torch.autograd.Function.__dict__["apply"].__func__
# The class of a custom Function's ctx, which is also its node in the graph (an output's grad_fn).
BackwardCFunction = torch.autograd.function.BackwardCFunction
strided = torch.strided
float32 = torch.float32
float64 = torch.float64
int64 = torch.int64
uint8 = torch.uint8

# Tensor methods, as functions.
detach = torch.Tensor.detach
clone = torch.Tensor.clone
to = torch.Tensor.to
contiguous = torch.Tensor.contiguous
permute = torch.Tensor.permute
dim = torch.Tensor.dim
reshape = torch.Tensor.reshape
view = torch.Tensor.view
as_numpy = torch.Tensor.numpy
numel = torch.Tensor.numel
element_size = torch.Tensor.element_size
item = torch.Tensor.item
mul = torch.Tensor.mul
add = torch.Tensor.add
sub = torch.Tensor.sub
mul_ = torch.Tensor.mul_
add_ = torch.Tensor.add_
requires_grad_ = torch.Tensor.requires_grad_
is_floating_point = torch.Tensor.is_floating_point
is_complex = torch.Tensor.is_complex
untyped_storage = torch.Tensor.untyped_storage
data_ptr = torch.Tensor.data_ptr
storage_offset = torch.Tensor.storage_offset
stride = torch.Tensor.stride
register_post_accumulate_grad_hook: Callable[
    [torch.Tensor, Callable[[torch.Tensor], None]], torch.utils.hooks.RemovableHandle
] = torch.Tensor.register_post_accumulate_grad_hook
remove_hook = torch.utils.hooks.RemovableHandle.remove

# Torch functions.
tensor = torch.tensor
randn = torch.randn
rand = torch.rand
randint = torch.randint
full = torch.full
equal = torch.equal
bernoulli = torch.bernoulli
zeros_like = torch.zeros_like
ones_like = torch.ones_like
randn_like = torch.randn_like
backward = torch.autograd.backward
autograd_grad = torch.autograd.grad
gradcheck = torch.autograd.gradcheck
no_grad = torch.no_grad
cpu_generator = torch.default_generator
get_rng_state = torch.get_rng_state
cuda_initialized = torch.cuda.is_initialized
cuda_init = torch.cuda.init
cuda_device_count = torch.cuda.device_count
cuda_seed_all = torch.cuda.manual_seed_all
cuda_reset_peak = torch.cuda.reset_peak_memory_stats
cuda_peak = torch.cuda.max_memory_allocated
cuda_allocated = torch.cuda.memory_allocated
disable_subclass = torch._C.DisableTorchFunctionSubclass
saved_tensors_hooks = torch.autograd.graph.saved_tensors_hooks
linear = torch.nn.functional.linear
relu = torch.nn.functional.relu
batch_norm = torch.nn.functional.batch_norm
mse_loss = torch.nn.functional.mse_loss
bce_with_logits = torch.nn.functional.binary_cross_entropy_with_logits
Linear = torch.nn.Linear
ReLU = torch.nn.ReLU
BatchNorm1d = torch.nn.BatchNorm1d
Sequential = torch.nn.Sequential
SGD = torch.optim.SGD
Adam = torch.optim.Adam

# Global state an answer may leave changed behind it.
is_grad_enabled = torch.is_grad_enabled
set_grad_enabled = torch._C._set_grad_enabled
is_inference_mode_enabled = torch.is_inference_mode_enabled
get_default_dtype = torch.get_default_dtype
set_default_dtype = torch.set_default_dtype

# Process-wide switches torch's public setters flip (`torch.autograd.set_detect_anomaly(True)`
# left in after debugging, `torch.set_float32_matmul_precision("medium")`), each as: its name
# in a report, its reader, its writer, and its value when the harness was imported.
Switch = tuple[str, Callable[[], object], Callable[[Any], object], object]
_C = torch._C
_anomaly = (_C.is_anomaly_enabled, _C.is_anomaly_check_nan_enabled, _C.set_anomaly_enabled)
_deterministic = (
    _C._get_deterministic_algorithms,
    _C._get_deterministic_algorithms_warn_only,
    _C._set_deterministic_algorithms,
)
_SDP_GETTERS = (
    _C._get_flash_sdp_enabled,
    _C._get_mem_efficient_sdp_enabled,
    _C._get_math_sdp_enabled,
    _C._get_cudnn_sdp_enabled,
)
_SDP_SETTERS = (
    _C._set_sdp_use_flash,
    _C._set_sdp_use_mem_efficient,
    _C._set_sdp_use_math,
    _C._set_sdp_use_cudnn,
)


def _sdp_backends() -> tuple[bool, ...]:
    return tuple(get() for get in _SDP_GETTERS)


def _set_sdp_backends(enabled: tuple[bool, ...]) -> None:
    for set_backend, on in zip(_SDP_SETTERS, enabled, strict=True):
        set_backend(on)


def _switch(name: str, read: Callable[[], object], write: Callable[[Any], object]) -> Switch:
    return name, read, write, read()


switches: tuple[Switch, ...] = (
    _switch(
        "anomaly detection",
        lambda: (_anomaly[0](), _anomaly[1]()),
        lambda value: _anomaly[2](*value),
    ),
    _switch(
        "deterministic algorithms",
        lambda: (_deterministic[0](), _deterministic[1]()),
        lambda value: _deterministic[2](value[0], warn_only=value[1]),
    ),
    _switch(
        "float32 matmul precision",
        _C._get_float32_matmul_precision,
        _C._set_float32_matmul_precision,
    ),
    _switch(
        "autograd multithreading", _C._is_multithreading_enabled, _C._set_multithreading_enabled
    ),
    _switch("warn always", _C._get_warnAlways, _C._set_warnAlways),
    _switch("scaled dot-product attention backend", _sdp_backends, _set_sdp_backends),
)
function_mode_depth = torch._C._len_torch_function_stack
dispatch_mode_depth = torch._C._len_torch_dispatch_stack
autograd_sequence_nr = torch._C._autograd._get_sequence_nr
# -1 outside a backward pass; an operator that sees another id runs inside one.
graph_task_id = torch._C._current_graph_task_id
pop_function_mode = torch._C._pop_torch_function_stack
pop_dispatch_mode = torch._C._pop_torch_dispatch_stack
push_function_mode = torch._C._push_on_torch_function_stack
function_mode_at = torch._C._get_function_stack_at
dispatch_mode_at = torch._C._get_dispatch_stack_at

py_seed = random.seed
py_getstate = random.getstate
np_seed = numpy.random.seed

# Builtins.
isinstance_ = builtins.isinstance
issubclass_ = builtins.issubclass
callable_ = builtins.callable
type_ = builtins.type
len_ = builtins.len
str_ = builtins.str
float_ = builtins.float
int_ = builtins.int
bool_ = builtins.bool
list_ = builtins.list
dict_ = builtins.dict
tuple_: type[tuple[Any, ...]] = builtins.tuple
compile_ = builtins.compile
exec_ = builtins.exec
getattr_ = builtins.getattr
vars_ = builtins.vars
enumerate_ = builtins.enumerate
repr_ = builtins.repr
setattr_ = builtins.setattr
ModuleType = types.ModuleType

# Standard library.
import_module = importlib.import_module
json_dumps = json.dumps
struct_pack = struct.pack
finalize = weakref.finalize
WeakSet = weakref.WeakSet
extract_tb = traceback.extract_tb
linecache_entries = linecache.cache


def _unchecked_kernel(name: str) -> Callable[..., Any]:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            f"torch.{name} (a fused optimiser kernel) is not available to graded code: "
            "it does not check its tensors' sizes"
        )

    return refused


# torch.optim's fused CPU kernels trust their tensors' sizes: a momentum buffer or a gradient
# smaller than its parameter is read and written past its end (a red-team pass turned that
# into reading and writing any memory). The optimisers look these up on torch at each step,
# and an answer cannot name them (private), so fused=True, however set, is an error.
for _kernel in ("_fused_sgd_", "_fused_adam_", "_fused_adamw_", "_fused_adagrad_"):
    setattr(torch, _kernel, _unchecked_kernel(_kernel))


def tensors_in(value: Any) -> list[torch.Tensor]:
    """Tensors in a (nested) value, in a fixed order (lists, then dict insertion order)."""
    found: list[torch.Tensor] = []
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type_(item)
        if isinstance_(item, Tensor):
            found.append(item)
        elif kind is list or kind is tuple:
            stack.extend(reversed(item))
        elif kind is dict:
            stack.extend(reversed(list_(item.values())))
    return found

"""Child side of the result channel: outputs to a JSON tree plus raw tensor bytes.

Only data leaves the child. Anything that is not a tensor, number, string,
bool, None, list, tuple or dict is sent as a "rejected" node with the reason,
so the supervisor can say why it failed. Functions are captured at import.
"""

from __future__ import annotations

from typing import Any

import torch

from runner.harness import pristine
from runner.harness.payload import DTYPE_NAMES, MAGIC, MAX_DEPTH, MAX_NODES

MAX_BLOB_BYTES = 256 * 1024 * 1024
MAX_STRING = 10_000

_PLAIN = (bool, int, float, type(None))


class Encoder:
    """Collects tensor bytes into one blob while turning values into JSON nodes.

    With `with_grads`, each tensor node also carries its `.grad` (purity checks
    read the caller's gradients after the call).
    """

    def __init__(self, max_bytes: int = MAX_BLOB_BYTES) -> None:
        self.blob = bytearray()
        self.max_bytes = max_bytes
        self.nodes = 0

    def encode(self, value: Any, depth: int = 0, *, with_grads: bool = False) -> dict[str, Any]:
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            return _bad("the value is nested too deeply or has too many parts")
        kind = pristine.type_(value)
        if kind in _PLAIN:
            return {"k": "py", "v": value}
        if kind is pristine.str_:
            return _string(value)
        if kind is list or kind is tuple:
            items = [self.encode(item, depth + 1, with_grads=with_grads) for item in value]
            return {"k": "list" if kind is list else "tuple", "items": items}
        if kind is dict:
            return self._dict(value, depth, with_grads)
        if pristine.isinstance_(value, pristine.Tensor):
            node = self._tensor(value)
            if with_grads and node["k"] == "tensor":
                grad = pristine.grad_of(value)
                node["grad"] = None if grad is None else self._tensor(grad)
            return node
        return _bad(f"an object of type {_qualname(kind)}")

    def _dict(self, value: dict[Any, Any], depth: int, with_grads: bool) -> dict[str, Any]:
        if not all(pristine.type_(key) is pristine.str_ for key in value):
            return _bad("a dict with keys that are not strings")
        items = [[k, self.encode(v, depth + 1, with_grads=with_grads)] for k, v in value.items()]
        return {"k": "dict", "items": items}

    def _tensor(self, value: torch.Tensor) -> dict[str, Any]:
        with pristine.disable_subclass():
            layout, device = pristine.layout_of(value), pristine.device_of(value)
            if layout != pristine.strided:
                return _bad(f"a tensor with layout {layout} (only dense tensors are graded)")
            if device.type == "meta":
                return _bad("a meta tensor (it has no values)")
            dtype = pristine.str_(pristine.dtype_of(value)).removeprefix("torch.")
            if dtype not in DTYPE_NAMES:
                return _bad(f"a tensor of dtype {dtype}, which is not supported")
            nbytes = pristine.numel(value) * pristine.element_size(value)
            if pristine.len_(self.blob) + nbytes > self.max_bytes:
                return _bad(f"a tensor of {nbytes} bytes, over the result size limit")
            node = {
                "k": "tensor",
                "dtype": dtype,
                "shape": list(pristine.shape_of(value)),
                "offset": pristine.len_(self.blob),
                "nbytes": nbytes,
                "device": pristine.str_(device),
                "requires_grad": pristine.bool_(pristine.requires_grad_of(value)),
                "is_leaf": pristine.bool_(pristine.is_leaf_of(value)),
                "type": _qualname(pristine.type_(value)),
            }
            if nbytes:
                flat = pristine.reshape(
                    pristine.contiguous(pristine.to(pristine.detach(value), "cpu")), (-1,)
                )
                self.blob += pristine.as_numpy(pristine.view(flat, pristine.uint8)).tobytes()
            return node


def _string(value: str) -> dict[str, Any]:
    if pristine.len_(value) > MAX_STRING:
        return _bad(f"a string of {pristine.len_(value)} characters (limit {MAX_STRING})")
    return {"k": "py", "v": value}


def _bad(reason: str) -> dict[str, Any]:
    return {"k": "bad", "reason": reason}


def _qualname(kind: type) -> str:
    module = getattr(kind, "__module__", "") or ""
    name = getattr(kind, "__qualname__", "?")
    return name if module == "builtins" else f"{module}.{name}"


def pack(header: dict[str, Any], blob: bytes | bytearray) -> bytes:
    """Frame a header and blob: MAGIC, uint32 LE header length, JSON header, blob."""
    header = {**header, "blob_size": pristine.len_(blob)}
    encoded = pristine.json_dumps(header, separators=(",", ":")).encode("utf-8")
    return MAGIC + pristine.struct_pack("<I", pristine.len_(encoded)) + encoded + bytes(blob)

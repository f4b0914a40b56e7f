"""Child side of the result channel: outputs to a JSON tree plus raw tensor bytes.

Only data leaves the child. Anything that is not a tensor, number, string,
bool, None, list, tuple or dict is sent as a "rejected" node with the reason,
so the supervisor can say why it failed. Functions are captured at import.
"""

from __future__ import annotations

import json
import struct
from typing import Any

import torch

from runner.harness.payload import DTYPE_NAMES, MAGIC, MAX_DEPTH, MAX_NODES

MAX_BLOB_BYTES = 256 * 1024 * 1024
MAX_STRING = 10_000

_Tensor = torch.Tensor
_disable_subclass = torch._C.DisableTorchFunctionSubclass
_detach = torch.Tensor.detach
_to = torch.Tensor.to
_contiguous = torch.Tensor.contiguous
_reshape = torch.Tensor.reshape
_view = torch.Tensor.view
_numpy = torch.Tensor.numpy
_numel = torch.Tensor.numel
_element_size = torch.Tensor.element_size
_strided = torch.strided
_uint8 = torch.uint8
_dumps = json.dumps
_pack = struct.pack
_type = type
_isinstance = isinstance
_len = len
_str = str
_PLAIN = (bool, int, float, type(None))


class Encoder:
    """Collects tensor bytes into one blob while turning values into JSON nodes."""

    def __init__(self, max_bytes: int = MAX_BLOB_BYTES) -> None:
        self.blob = bytearray()
        self.max_bytes = max_bytes
        self.nodes = 0

    def encode(self, value: Any, depth: int = 0) -> dict[str, Any]:
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            return _bad("the value is nested too deeply or has too many parts")
        kind = _type(value)
        if kind in _PLAIN:
            return {"k": "py", "v": value}
        if kind is _str:
            return _string(value)
        if kind is list or kind is tuple:
            items = [self.encode(item, depth + 1) for item in value]
            return {"k": "list" if kind is list else "tuple", "items": items}
        if kind is dict:
            return self._dict(value, depth)
        if _isinstance(value, _Tensor):
            return self._tensor(value)
        return _bad(f"a {_qualname(kind)} object")

    def _dict(self, value: dict[Any, Any], depth: int) -> dict[str, Any]:
        if not all(_type(key) is _str for key in value):
            return _bad("a dict with keys that are not strings")
        return {"k": "dict", "items": [[k, self.encode(v, depth + 1)] for k, v in value.items()]}

    def _tensor(self, value: torch.Tensor) -> dict[str, Any]:
        with _disable_subclass():
            if value.layout != _strided:
                return _bad(f"a tensor with layout {value.layout} (only dense tensors are graded)")
            if value.device.type == "meta":
                return _bad("a meta tensor (it has no values)")
            dtype = _str(value.dtype).removeprefix("torch.")
            if dtype not in DTYPE_NAMES:
                return _bad(f"a tensor of dtype {dtype}, which is not supported")
            nbytes = _numel(value) * _element_size(value)
            if _len(self.blob) + nbytes > self.max_bytes:
                return _bad(f"a tensor of {nbytes} bytes, over the result size limit")
            node = {
                "k": "tensor",
                "dtype": dtype,
                "shape": list(value.shape),
                "offset": _len(self.blob),
                "nbytes": nbytes,
                "device": _str(value.device),
                "requires_grad": bool(value.requires_grad),
                "is_leaf": bool(value.is_leaf),
                "type": _qualname(_type(value)),
            }
            if nbytes:
                flat = _reshape(_contiguous(_to(_detach(value), "cpu")), (-1,))
                self.blob += _numpy(_view(flat, _uint8)).tobytes()
            return node


def _string(value: str) -> dict[str, Any]:
    if _len(value) > MAX_STRING:
        return _bad(f"a string of {_len(value)} characters (limit {MAX_STRING})")
    return {"k": "py", "v": value}


def _bad(reason: str) -> dict[str, Any]:
    return {"k": "bad", "reason": reason}


def _qualname(kind: type) -> str:
    module = getattr(kind, "__module__", "") or ""
    name = getattr(kind, "__qualname__", "?")
    return name if module == "builtins" else f"{module}.{name}"


def pack(header: dict[str, Any], blob: bytes | bytearray) -> bytes:
    """Frame a header and blob: MAGIC, uint32 LE header length, JSON header, blob."""
    header = {**header, "blob_size": _len(blob)}
    encoded = _dumps(header, separators=(",", ":")).encode("utf-8")
    return MAGIC + _pack("<I", _len(encoded)) + encoded + bytes(blob)

"""Supervisor side of the result channel: strict decoding of a child's payload.

Format: MAGIC, a uint32 little-endian header length, a UTF-8 JSON header,
then raw little-endian tensor bytes. Nothing is ever unpickled: tensors are
rebuilt with `torch.frombuffer` after their dtype, shape and byte range are
checked against the blob. Any inconsistency raises PayloadError.
"""

from __future__ import annotations

import bisect
import json
import math
import struct
from dataclasses import dataclass, replace
from typing import Any

import torch

MAGIC = b"VBR1"
MAX_HEADER_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 32
MAX_NODES = 100_000
MAX_DIMS = 16
MAX_DIM_SIZE = 2**40
DTYPE_NAMES: dict[str, torch.dtype] = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
    "uint8": torch.uint8,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "bool": torch.bool,
}


class PayloadError(ValueError):
    """The payload is malformed; the message says what is wrong."""


@dataclass(frozen=True)
class TensorValue:
    tensor: torch.Tensor
    requires_grad: bool
    is_leaf: bool
    device: str
    type_name: str
    grad: TensorValue | None = None  # the tensor's .grad, where the child was asked for it
    grad_recorded: bool = False


@dataclass(frozen=True)
class Rejected:
    reason: str


@dataclass(frozen=True)
class Decoded:
    header: dict[str, Any]
    blob: bytes


def clean_strings(value: Any) -> Any:
    """`value` (parsed JSON) with every string safe to store and show: lone surrogates become
    U+FFFD and NUL becomes `\\x00` (PostgreSQL refuses both in text)."""
    root: list[Any] = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        holder, key = stack.pop()
        item = holder[key]
        if isinstance(item, str):
            holder[key] = _clean_text(item)
        elif isinstance(item, list):
            stack.extend((item, index) for index in range(len(item)))
        elif isinstance(item, dict):
            cleaned = {_clean_text(k): v for k, v in item.items()}
            holder[key] = cleaned
            stack.extend((cleaned, k) for k in cleaned)
    return root[0]


def _clean_text(text: str) -> str:
    if text.isascii():
        return text.replace("\x00", "\\x00")
    return "".join(
        "\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else "\\x00" if ch == "\x00" else ch for ch in text
    )


def split_payload(data: bytes) -> Decoded:
    """Check the frame and parse the JSON header; raises PayloadError."""
    if len(data) < 8 or data[:4] != MAGIC:
        raise PayloadError("missing or wrong magic bytes")
    (length,) = struct.unpack("<I", data[4:8])
    if length > MAX_HEADER_BYTES or 8 + length > len(data):
        raise PayloadError(f"header length {length} does not fit the payload")
    try:
        header = json.loads(data[8 : 8 + length].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise PayloadError(f"header is not valid JSON: {error}") from error
    if not isinstance(header, dict):
        raise PayloadError("header is not a JSON object")
    header = clean_strings(header)
    blob = data[8 + length :]
    if header.get("blob_size") != len(blob):
        raise PayloadError("blob size does not match the header")
    return Decoded(header=header, blob=bytes(blob))


class NodeDecoder:
    """Turns header nodes back into Python values, tensors and Rejected markers.

    Each byte of the blob backs at most one tensor, so the decoded total can
    never exceed the frame that was received.
    """

    def __init__(self, blob: bytes) -> None:
        self.blob = blob
        self.nodes = 0
        self.claimed: list[tuple[int, int]] = []  # sorted, non-overlapping byte ranges

    def decode(self, node: object, depth: int = 0) -> Any:
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            raise PayloadError("value nested too deeply or too large")
        if not isinstance(node, dict):
            raise PayloadError("a value node is not an object")
        kind = node.get("k")
        if kind == "py":
            value = _plain(node.get("v"))
            if type(value) is int and not -(2**63) <= value < 2**63:
                return Rejected("an integer too large to compare (more than 64 bits)")
            return value
        if kind in ("list", "tuple"):
            items = [self.decode(item, depth + 1) for item in _items(node)]
            return items if kind == "list" else tuple(items)
        if kind == "dict":
            return self._dict(node, depth)
        if kind == "tensor":
            return self._tensor_with_grad(node)
        if kind == "bad" and isinstance(node.get("reason"), str):
            return Rejected(node["reason"][:500])
        raise PayloadError(f"unknown value node kind {kind!r}")

    def _dict(self, node: dict[str, Any], depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for pair in _items(node):
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
                raise PayloadError("a dict item is not a [key, value] pair")
            result[pair[0]] = self.decode(pair[1], depth + 1)
        return result

    def _tensor_with_grad(self, node: dict[str, Any]) -> TensorValue:
        value = self._tensor(node)
        if "grad" not in node:
            return value
        grad = node["grad"]
        if grad is not None and not (isinstance(grad, dict) and grad.get("k") == "tensor"):
            raise PayloadError("a tensor's grad is neither null nor a tensor node")
        self.nodes += 1
        return replace(value, grad=None if grad is None else self._tensor(grad), grad_recorded=True)

    def _claim(self, offset: int, nbytes: int) -> None:
        if not nbytes:
            return
        index = bisect.bisect(self.claimed, (offset, offset + nbytes))
        before = self.claimed[index - 1] if index else None
        after = self.claimed[index] if index < len(self.claimed) else None
        if (before and before[1] > offset) or (after and after[0] < offset + nbytes):
            raise PayloadError("two tensors claim the same bytes of the blob")
        self.claimed.insert(index, (offset, offset + nbytes))

    def _tensor(self, node: dict[str, Any]) -> TensorValue:
        dtype = DTYPE_NAMES.get(node.get("dtype"))  # type: ignore[arg-type]  # checked below
        if dtype is None:
            raise PayloadError(f"unknown dtype name {node.get('dtype')!r}")
        shape = _shape(node.get("shape"))
        offset, nbytes = node.get("offset"), node.get("nbytes")
        itemsize = torch.empty((), dtype=dtype).element_size()
        if not isinstance(offset, int) or not isinstance(nbytes, int) or offset < 0:
            raise PayloadError("tensor offset or size is not a non-negative integer")
        if isinstance(offset, bool) or isinstance(nbytes, bool):
            raise PayloadError("tensor offset or size is not a non-negative integer")
        if nbytes != math.prod(shape) * itemsize:
            raise PayloadError(f"tensor of shape {tuple(shape)} cannot hold {nbytes} bytes")
        if offset + nbytes > len(self.blob):
            raise PayloadError("tensor bytes lie outside the blob")
        self._claim(offset, nbytes)
        flags = [node.get(key) for key in ("requires_grad", "is_leaf")]
        texts = [node.get(key) for key in ("device", "type")]
        if not all(isinstance(f, bool) for f in flags) or not all(
            isinstance(t, str) for t in texts
        ):
            raise PayloadError("tensor flags are malformed")
        return TensorValue(_rebuild(self.blob, offset, nbytes, dtype, shape), *flags, *texts)  # type: ignore[arg-type]  # flags and texts checked above


def _rebuild(
    blob: bytes, offset: int, nbytes: int, dtype: torch.dtype, shape: list[int]
) -> torch.Tensor:
    try:
        if nbytes == 0:
            return torch.empty(shape, dtype=dtype)
        buffer = bytearray(blob[offset : offset + nbytes])
        return torch.frombuffer(buffer, dtype=dtype).reshape(shape)
    except (RuntimeError, ValueError, OverflowError) as error:
        raise PayloadError(f"a tensor of shape {tuple(shape)} cannot be rebuilt: {error}") from None


def _shape(raw: object) -> list[int]:
    if not isinstance(raw, list) or len(raw) > MAX_DIMS:
        raise PayloadError("tensor shape is not a list of at most 16 sizes")
    if not all(_is_int(n) and 0 <= n <= MAX_DIM_SIZE for n in raw):
        raise PayloadError(f"tensor shape {raw!r} has an invalid size")
    return list(raw)


def _items(node: dict[str, Any]) -> list[Any]:
    items = node.get("items")
    if not isinstance(items, list):
        raise PayloadError("container node without an items list")
    return items


def _plain(value: object) -> object:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise PayloadError("a plain value is not a number, string, bool or null")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)

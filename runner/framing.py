"""The result channel's wire format: one length-prefixed frame, nothing else.

A frame is the magic `VBF1`, an 8-byte big-endian length and that many bytes.
The reader is the trusted side: it caps the size and accepts exactly one
well-formed frame, so a child cannot smuggle a second verdict or a giant one.
"""

from __future__ import annotations

import os
import struct

MAGIC = b"VBF1"
HEADER = struct.Struct(">4sQ")


class FrameError(ValueError):
    """The bytes on the result channel are not exactly one valid frame."""


def encode_frame(payload: bytes) -> bytes:
    return HEADER.pack(MAGIC, len(payload)) + payload


def write_frame(fd: int, payload: bytes) -> None:
    """Write one frame to `fd`, retrying short writes."""
    view = memoryview(encode_frame(payload))
    while view:
        written = os.write(fd, view)
        view = view[written:]


def parse_single_frame(data: bytes, *, cap: int) -> bytes:
    """Return the payload of the only frame in `data` or raise FrameError."""
    if not data:
        raise FrameError("no result was returned")
    if len(data) < HEADER.size:
        raise FrameError("the result frame is truncated")
    magic, length = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise FrameError("the result channel holds bytes that are not a result frame")
    if length > cap:
        raise FrameError(f"the result frame announces {length} bytes, over the {cap}-byte cap")
    end = HEADER.size + length
    if len(data) < end:
        raise FrameError("the result frame is truncated")
    if len(data) > end:
        raise FrameError("more than one result frame was written")
    return data[HEADER.size : end]


def holds_whole_frame(data: bytes | bytearray) -> bool:
    """Whether `data` starts with a valid header and holds all the bytes it announces."""
    if len(data) < HEADER.size:
        return False
    magic, length = HEADER.unpack_from(data)
    return bool(magic == MAGIC and len(data) >= HEADER.size + int(length))


def read_to_eof(fd: int, *, cap: int) -> bytes:
    """Read a whole stream (blocking) but never more than `cap` bytes."""
    chunks: list[bytes] = []
    size = 0
    while size <= cap:
        chunk = os.read(fd, min(1 << 16, cap + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    data = b"".join(chunks)
    if size > cap:
        raise FrameError(f"the message is larger than the {cap}-byte cap")
    return data

"""The zygote settles its heap (frozen, huge pages) before forking the first child."""

import ctypes
import errno
import mmap
import os

import pytest

from runner.sandbox import libc
from runner.supervisor import Supervisor
from runner.zygote_memory import anonymous_ranges

MB = 1 << 20
HUGE = 2 * MB
MADV_COLLAPSE = 25  # Linux 6.1+

MAPS = """\
55d0a0000000-55d0a0a00000 rw-p 00000000 00:00 0                          [heap]
7f0000100000-7f0000500000 rw-p 00000000 00:00 0 \n\
7f0000600000-7f0000700000 rw-p 00000000 00:00 0 \n\
7f0000800000-7f0000c00000 r-xp 00000000 fd:01 1234                       /usr/lib/libtorch_cpu.so
7f0001000000-7f0001400000 rw-p 00001000 fd:01 1234                       /usr/lib/libtorch_cpu.so
7f0002000000-7f0002400000 rw-s 00000000 00:05 99                         /dev/shm/x
7ffc00000000-7ffc00400000 rw-p 00000000 00:00 0                          [stack]
"""


def test_it_collapses_only_whole_2mb_blocks_of_private_anonymous_memory() -> None:
    ranges = anonymous_ranges(MAPS)

    assert ranges == [
        (0x55D0A0000000, 0x55D0A0000000 + 10 * MB),  # the heap, already aligned
        (0x7F0000200000, 0x7F0000400000),  # 1 MB in, 1 MB short of the end: one block
    ]


def _collapse_refused() -> str | None:
    """Why this kernel will not collapse anonymous memory into a huge page here, or None."""
    with mmap.mmap(-1, 2 * HUGE) as area:
        area.write(b"\x01" * len(area))  # every page present, as in the zygote's heap
        view = ctypes.c_char.from_buffer(area)
        base = ctypes.addressof(view)
        del view  # the mapping cannot close while ctypes holds it
        start = -(-base // HUGE) * HUGE  # the one whole 2 MB block inside the 4 MB mapping
        if libc.madvise(start, HUGE, MADV_COLLAPSE):
            return None
        code = ctypes.get_errno()
    return f"MADV_COLLAPSE refused here: {errno.errorcode.get(code, code)} {os.strerror(code)}"


def test_the_zygote_freezes_its_heap(supervisor: Supervisor) -> None:
    assert supervisor.zygote is not None

    assert supervisor.zygote.hello["frozen_objects"] > 10_000  # torch and the warmed harness


def test_the_zygote_maps_its_heap_with_huge_pages_where_the_kernel_collapses(
    supervisor: Supervisor,
) -> None:
    refused = _collapse_refused()
    if refused is not None:
        pytest.skip(refused)
    assert supervisor.zygote is not None

    # At least one 2 MB page; of its ~220 MB of anonymous memory, usually most.
    assert supervisor.zygote.hello["huge_page_bytes"] >= HUGE

"""Making the warm zygote cheap to fork: a frozen heap mapped with 2 MB pages where possible.

Every job forks the zygote and throws the child away, so the kernel copies and
later tears down one page-table entry per 4 KB of its ~220 MB of private memory
(about 55,000 each way). Collapsing that memory into transparent huge pages
turns it into about 110 entries each way; a child that writes to one still
copies only the 4 KB page it touched. Freezing the garbage collector first
keeps collections in the zygote and its children from writing to (and so
copying) every object header. Both steps are best effort: an old kernel or
`transparent_hugepage=never` only loses the speed-up.
"""

from __future__ import annotations

import gc

from runner.sandbox import libc

_HUGE = 2 << 20
_MADV_COLLAPSE = 25  # Linux 6.1+: synchronous collapse, whatever the sysfs THP mode says
_PRIVATE_WRITABLE = "rw-p"
_ANONYMOUS_NAMES = ("", "[heap]")


def anonymous_ranges(maps_text: str) -> list[tuple[int, int]]:
    """The 2 MB-aligned parts of private writable anonymous mappings (heap included)."""
    ranges = []
    for line in maps_text.splitlines():
        fields = line.split(maxsplit=5)
        name = fields[5].strip() if len(fields) > 5 else ""
        if len(fields) < 5 or fields[1] != _PRIVATE_WRITABLE or name not in _ANONYMOUS_NAMES:
            continue
        low, high = (int(part, 16) for part in fields[0].split("-"))
        start, end = -(-low // _HUGE) * _HUGE, high // _HUGE * _HUGE
        if end > start:
            ranges.append((start, end))
    return ranges


def collapse_anonymous_memory() -> int:
    """Ask the kernel to back the zygote's anonymous memory with huge pages; bytes collapsed."""
    with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
        ranges = anonymous_ranges(maps.read())
    collapsed = 0
    for start, end in ranges:
        # A range may partly fail (a pinned page, no free huge page); the rest still counts.
        if libc.madvise(start, end - start, _MADV_COLLAPSE):
            collapsed += end - start
    return collapsed


def huge_page_bytes() -> int:
    """How much of this process's anonymous memory is mapped with huge pages now."""
    with open("/proc/self/smaps_rollup", encoding="ascii") as rollup:
        for line in rollup:
            if line.startswith("AnonHugePages:"):
                return int(line.split()[1]) * 1024
    return 0


def settle_for_forking() -> dict[str, int]:
    """Freeze the heap and collapse it; call once, after warm-up, before the first fork."""
    gc.collect()
    gc.freeze()
    collapse_anonymous_memory()
    return {"frozen_objects": gc.get_freeze_count(), "huge_page_bytes": huge_page_bytes()}

"""The zygote settles its heap (frozen, huge pages) before forking the first child."""

from runner.supervisor import Supervisor
from runner.zygote_memory import anonymous_ranges

MB = 1 << 20

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


def test_the_zygote_freezes_its_heap_and_reports_its_huge_pages(supervisor: Supervisor) -> None:
    assert supervisor.zygote is not None
    hello = supervisor.zygote.hello

    assert hello["frozen_objects"] > 10_000  # torch's modules and the warmed harness
    assert isinstance(hello["huge_page_bytes"], int)

"""Resource limits set inside the child with setrlimit."""

from __future__ import annotations

import math
import resource

_MB = 1 << 20
# Room above the inherited mappings for the interpreter's own growth besides the job's data.
AS_HEADROOM_MB = 256


def vm_size_bytes() -> int:
    """The current address-space size, from /proc/self/status."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def apply_base_limits(*, file_size_mb: int, open_files: int = 64) -> None:
    """Limits that do not depend on the job: no core dumps, capped files and descriptors."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_mb * _MB, file_size_mb * _MB))
    resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))


def apply_job_limits(*, time_s: float, memory_mb: int, limit_address_space: bool) -> None:
    """CPU seconds (soft, then a hard kill a second later) and address space above today's size."""
    cpu = max(1, math.ceil(time_s))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    if limit_address_space:
        ceiling = vm_size_bytes() + (memory_mb + AS_HEADROOM_MB) * _MB
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))

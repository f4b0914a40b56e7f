"""Memory, pids and CPU limits through cgroups (v1 hybrid or v2), where the host lets us write them.

The supervisor owns a small pool of leaf groups per slot; a standby child joins
a leaf before it confines itself, so everything it starts is counted. The CPU
quota sits on the slot's group above the leaves, so the slot's children share
it; the zygote stays outside, and its forking never waits for a job's quota.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

_ROOT = "/sys/fs/cgroup"
_V1_CONTROLLERS = ("memory", "pids")
_V1_CPU_CONTROLLERS = ("cpu", "cpuacct")  # one mount ("cpu,cpuacct") on most hosts, two here
CPU_PERIOD_US = 100_000


@dataclass(frozen=True)
class Cgroup:
    """One leaf group: its directory for each controller (one directory on v2)."""

    version: int
    dirs: dict[str, str] = field(default_factory=dict)

    def join(self, pid: int) -> None:
        for directory in set(self.dirs.values()):
            _write(directory, "cgroup.procs", str(pid))

    def is_empty(self) -> bool:
        return all(_read(d, "cgroup.procs").strip() == "" for d in set(self.dirs.values()))


def _write(directory: str, name: str, value: str) -> None:
    fd = os.open(os.path.join(directory, name), os.O_WRONLY | os.O_NOFOLLOW)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _read(directory: str, name: str) -> str:
    fd = os.open(os.path.join(directory, name), os.O_RDONLY | os.O_NOFOLLOW)
    try:
        return os.read(fd, 1 << 16).decode()
    finally:
        os.close(fd)


def _own_paths() -> dict[str, str]:
    # /proc/self/cgroup lines look like "4:memory:/some/path" (v1) or "0::/path" (v2).
    paths: dict[str, str] = {}
    with open("/proc/self/cgroup", encoding="ascii") as lines:
        for line in lines:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                paths[name] = path
    return paths


def _v1_bases(slot: int, controllers: tuple[str, ...] = _V1_CONTROLLERS) -> dict[str, str] | None:
    own = _own_paths()
    bases: dict[str, str] = {}
    for controller in controllers:
        mount = os.path.join(_ROOT, controller)
        if controller not in own or not os.path.isdir(mount):
            return None
        # realpath: "cpu" and "cpuacct" are often links to one "cpu,cpuacct" mount.
        bases[controller] = os.path.join(
            os.path.realpath(mount) + own[controller], f"vivabank-slot{slot}"
        )
    return bases


def _v1_optional_bases(slot: int, controllers: tuple[str, ...]) -> dict[str, str]:
    found = (_v1_bases(slot, (controller,)) for controller in controllers)
    return {key: path for bases in found if bases for key, path in bases.items()}


def _v2_base(slot: int) -> str | None:
    if not os.path.exists(os.path.join(_ROOT, "cgroup.controllers")):
        return None
    base = os.path.join(_ROOT + _own_paths().get("", "/"), f"vivabank-slot{slot}")
    os.makedirs(base, exist_ok=True)
    _write(base, "cgroup.subtree_control", "+memory +pids")
    return base


def _peak_file(leaf: Cgroup) -> tuple[str, str]:
    if leaf.version == 1:
        return leaf.dirs["memory"], "memory.max_usage_in_bytes"
    return leaf.dirs[""], "memory.peak"


class CgroupPool:
    """Leaf groups for one slot; `available` is False where the host gives us none."""

    def __init__(self, slot: int) -> None:
        self._leaves: list[Cgroup] = []
        self._busy: set[int] = set()
        self.version = 0
        self._bases: dict[str, str] = {}
        self.cpu = SlotCpu({})
        if slot < 0:
            return
        try:
            v1 = _v1_bases(slot)
            if v1 is not None:
                cpu = _v1_optional_bases(slot, _V1_CPU_CONTROLLERS)
                for directory in {**v1, **cpu}.values():
                    os.makedirs(directory, exist_ok=True)
                self.version, self._bases = 1, {**v1, **cpu}
                self.cpu = SlotCpu(cpu)
            else:
                v2 = _v2_base(slot)
                if v2 is not None:
                    self.version, self._bases = 2, {"": v2}
                    self.cpu = SlotCpu({"": v2})
        except OSError:
            self.version, self._bases = 0, {}

    @classmethod
    def disabled(cls) -> CgroupPool:
        """A pool that hands out nothing (unsandboxed development runs)."""
        return cls(slot=-1)

    @property
    def available(self) -> bool:
        return self.version != 0

    def acquire(self) -> Cgroup | None:
        """A leaf with no processes left in it, creating one if all are busy."""
        if not self.available:
            return None
        for index, leaf in enumerate(self._leaves):
            if index not in self._busy and leaf.is_empty():
                self._busy.add(index)
                return leaf
        name = f"c{len(self._leaves)}"
        dirs = {key: os.path.join(base, name) for key, base in self._bases.items()}
        for directory in dirs.values():
            os.makedirs(directory, exist_ok=True)
        leaf = Cgroup(version=self.version, dirs=dirs)
        self._busy.add(len(self._leaves))
        self._leaves.append(leaf)
        return leaf

    def release(self, leaf: Cgroup) -> None:
        """The leaf's job is over; it is reused once its processes are gone."""
        self._busy.discard(self._leaves.index(leaf))

    def set_limits(self, leaf: Cgroup, *, memory_mb: int, pids: int) -> None:
        memory = str(memory_mb << 20)
        if leaf.version == 1:
            _write(leaf.dirs["memory"], "memory.limit_in_bytes", memory)
            _write(leaf.dirs["pids"], "pids.max", str(pids))
        else:
            _write(leaf.dirs[""], "memory.max", memory)
            if os.path.exists(os.path.join(leaf.dirs[""], "memory.swap.max")):
                _write(leaf.dirs[""], "memory.swap.max", "0")
            _write(leaf.dirs[""], "pids.max", str(pids))

    def reset_peak(self, leaf: Cgroup) -> bool:
        """Start the leaf's peak memory count afresh (v1, or v2 on Linux 6.12+); False if not."""
        directory, name = _peak_file(leaf)
        try:
            _write(directory, name, "0")
        except OSError:
            return False
        return True

    def peak_kb(self, leaf: Cgroup) -> int | None:
        """The most memory the kernel charged to the leaf since its last reset, in KiB."""
        directory, name = _peak_file(leaf)
        try:
            return int(_read(directory, name).strip()) >> 10
        except (OSError, ValueError):
            return None

    def oom_kills(self, leaf: Cgroup) -> int:
        """How many processes the kernel has OOM-killed in this leaf so far."""
        if leaf.version == 1:
            text = _read(leaf.dirs["memory"], "memory.oom_control")
        else:
            text = _read(leaf.dirs[""], "memory.events")
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def close(self) -> None:
        for leaf in self._leaves:
            for directory in leaf.dirs.values():
                try:
                    os.rmdir(directory)
                except OSError:
                    continue
        for base in self._bases.values():
            try:
                os.rmdir(base)
            except OSError:
                continue


class SlotCpu:
    """The slot's CPU quota and usage: v1 `cpu`/`cpuacct` slot groups, or the v2 slot group."""

    def __init__(self, bases: dict[str, str]) -> None:
        self._dirs = sorted(set(bases.values()))
        self._v2 = "" in bases
        self.available = False
        self.note = "no cgroup cpu controller"

    def _file(self, name: str) -> str | None:
        for directory in self._dirs:
            if os.path.exists(os.path.join(directory, name)):
                return directory
        return None

    def limit(self, cpus: float) -> None:
        """Cap the slot's children together at `cpus` CPUs; 0 means no cap."""
        quota = round(cpus * CPU_PERIOD_US) if cpus > 0 else -1
        name = "cpu.max" if self._v2 else "cpu.cfs_quota_us"
        directory = self._file(name)
        if directory is None:
            if self._dirs:
                self.note = f"no {name} for this slot: the cpu controller is not enabled here"
            return
        try:
            if self._v2:
                _write(directory, name, f"{'max' if quota < 0 else quota} {CPU_PERIOD_US}")
            else:
                _write(directory, "cpu.cfs_period_us", str(CPU_PERIOD_US))
                _write(directory, name, str(quota))
        except OSError as error:
            self.note = f"cpu quota not set: {error}"
            return
        self.available = True
        self.note = f"{cpus:g} CPU per slot" if quota > 0 else "no cpu quota"

    def usage_s(self) -> float | None:
        """CPU seconds the slot's children have used so far, where the host accounts for it."""
        if self._v2:
            for line in _read(self._dirs[0], "cpu.stat").splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
            return None
        directory = self._file("cpuacct.usage")
        return int(_read(directory, "cpuacct.usage")) / 1e9 if directory else None

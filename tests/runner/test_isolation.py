"""A child sees only its allow-listed root, writes only its own scratch, and uses about one CPU."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from runner.api import Limits, RunResult, Status
from runner.sandbox.allow_list import RootConfig, allow_list
from runner.supervisor import Supervisor
from runner.worker import execute

DEVICES = {"null", "zero", "full", "random", "urandom"}
SCRATCH = {"/tmp", "/dev/shm"}
SYSTEM_LIBRARIES = ("/usr/lib", "/lib", "/usr/lib64", "/lib64", "/usr/local/lib")
# Lists the child's mount points, and every entry of its root outside them.
WALK = """
import json, os
mounts = sorted({line.split()[4] for line in open('/proc/self/mountinfo')})
entries = []
for top, dirs, files in os.walk('/'):
    if top == '/proc':
        dirs[:] = []
        continue
    for name in dirs + files:
        path = os.path.join(top, name)
        link = os.path.islink(path)
        kind = 'link' if link else 'mount' if path in mounts else 'dir' if name in dirs else 'file'
        entries.append([path, kind])
    dirs[:] = [d for d in dirs if os.path.join(top, d) not in mounts]
    dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
print(json.dumps({'mounts': mounts, 'entries': entries}))
"""
LAZY_TORCH = """
import sys, torch
preloaded = 'torch._subclasses.schema_check_mode' in sys.modules
import torch._subclasses.schema_check_mode
import torch.distributions, torch.fft
print(preloaded, sys.prefix)
print(torch.ones(2))
print(torch.distributions.Normal(0.0, 1.0).log_prob(torch.zeros(1)).item())
print(torch.fft.rfft(torch.ones(4)).real.tolist())
"""


def run(source: str, time_s: float = 20) -> RunResult:
    result = execute(source, Limits(time_s=time_s, output_kb=256))
    assert result.status == Status.OK, (result.status, result.stderr[-2000:])
    return result


def _real(path: str) -> str:
    return os.path.realpath(path)


def _child_view() -> dict[str, Any]:
    view: dict[str, Any] = json.loads(run(WALK).stdout)
    return view


def _is_ancestor(path: str, of: str) -> bool:
    return of.startswith(path.rstrip("/") + "/")


def test_a_child_sees_only_the_allow_listed_root(supervisor: Supervisor) -> None:
    view = _child_view()
    python = {_real(sys.base_prefix), _real(sys.prefix)}
    allowed = python | SCRATCH | {"/", "/proc", "/etc/ld.so.cache"}
    allowed |= {f"/dev/{name}" for name in DEVICES}
    libraries = {m for m in view["mounts"] if m not in allowed}
    assert python <= set(view["mounts"])
    assert all(m.startswith(SYSTEM_LIBRARIES) for m in libraries), libraries
    links = [path for path, kind in view["entries"] if kind == "link"]
    for path, kind in view["entries"]:
        if kind == "dir":  # only the way to an allowed mount or link
            assert any(_is_ancestor(path, m) for m in [*view["mounts"], *links]), path
        assert kind != "file", f"{path} is in the child's root but in no allowed mount"


def test_top_level_etc_and_dev_hold_only_what_python_needs(supervisor: Supervisor) -> None:
    view = _child_view()
    names = {path for path, _ in view["entries"]}
    # Links such as a merged-/usr host's /bin -> usr/bin only point into what is allowed.
    top = {p for p, kind in view["entries"] if p.count("/") == 1 and kind != "link"}
    python = [sys.prefix, sys.base_prefix, _real(sys.prefix), _real(sys.base_prefix)]
    leading = {"/" + p.split("/")[1] for p in [*python, *SYSTEM_LIBRARIES]}
    assert top <= leading | {"/dev", "/etc", "/proc", "/tmp"}, top
    assert {p for p in names if p.startswith("/etc/")} == {"/etc/ld.so.cache"}
    dev = {p.split("/")[2] for p in names if p.startswith("/dev/") and p.count("/") == 2}
    assert dev == DEVICES | {"shm"}


def _names_leading_to_python(folder: str) -> set[str]:
    paths = {sys.prefix, sys.base_prefix, _real(sys.prefix), _real(sys.base_prefix)}
    inside = [Path(p).relative_to(folder) for p in paths if _is_ancestor(folder, p)]
    return {relative.parts[0] for relative in inside}


def test_host_data_the_checkout_and_its_neighbours_are_invisible(supervisor: Supervisor) -> None:
    base = Path(settings.BASE_DIR).resolve()
    gone = ["/var/tmp", "/var/lib/postgresql", "/etc/postgresql", "/home", "/run", "/srv"]
    gone += [str(base / "manage.py"), str(base / "config"), str(Path(settings.VAR_DIR))]
    folders = [str(base), *(str(p) for p in base.parents if p != Path("/"))]
    source = (
        "import json, os\n"
        f"gone = {gone!r}\nfolders = {folders!r}\n"
        "print(json.dumps({'seen': [p for p in gone if os.path.lexists(p)],\n"
        "    'listed': {f: sorted(os.listdir(f)) for f in folders if os.path.isdir(f)}}))\n"
    )
    view = json.loads(run(source).stdout)
    assert view["seen"] == []
    for folder, names in view["listed"].items():
        assert set(names) <= _names_leading_to_python(folder), (folder, names)


def test_a_child_can_write_only_its_own_scratch(supervisor: Supervisor) -> None:
    folders = sorted({p for p, kind in _child_view()["entries"] if kind in ("dir", "mount")})
    source = (
        "import json, os\nwritable = []\n"
        f"for folder in {['/', *folders]!r}:\n"
        "    try:\n"
        "        with open(os.path.join(folder, '.probe'), 'w') as handle:\n"
        "            handle.write('x')\n"
        "        writable.append(folder)\n"
        "    except OSError:\n"
        "        pass\n"
        "print(json.dumps(writable))\n"
    )
    assert json.loads(run(source).stdout) == sorted(SCRATCH)


def _venv_in_tmp() -> list[str]:
    """The folder each child's /tmp holds for a virtualenv that lives under /tmp (a checkout
    cloned there, as CI does); nothing else may be in a fresh /tmp."""
    parts = Path(os.path.realpath(sys.prefix)).parts
    return [parts[2]] if parts[1:2] == ("tmp",) else []


def test_files_left_in_tmp_or_dev_shm_are_gone_for_the_next_job(supervisor: Supervisor) -> None:
    run("for p in ('/tmp/left', '/dev/shm/left'):\n    open(p, 'w').write('answers')")
    for _ in range(3):  # the standby forked before the plant, and fresh ones after it
        look = run("import os\nprint(sorted(os.listdir('/tmp')), os.listdir('/dev/shm'))")
        assert look.stdout == f"{_venv_in_tmp()} []\n"


def test_lazily_imported_torch_modules_load_in_a_job(supervisor: Supervisor) -> None:
    lines = run(LAZY_TORCH).stdout.splitlines()
    assert lines[0] == f"False {sys.prefix}", "schema_check_mode must not come from the zygote"
    assert lines[1:] == ["tensor([1., 1.])", "-0.9189385175704956", "[4.0, 0.0, 0.0]"]


def test_extra_paths_never_cover_the_childs_scratch_or_proc() -> None:
    extra = ("/", "/tmp", "/dev", "/dev/shm", "/proc", "/etc")
    config = RootConfig(mountpoint="/nonexistent", excluded=(), extra_readonly=extra)
    binds = {entry.target for entry in allow_list(config, cuda=False) if entry.kind == "bind"}
    assert binds.isdisjoint(extra[:-1])
    assert "/etc" in binds  # an ordinary extra path is bound


@pytest.fixture(params=["/tmp", "/opt"])
def copied_venv(request: pytest.FixtureRequest) -> Iterator[Path]:
    """A hard-linked copy of this virtualenv under /tmp (the old bug) or /opt (containers)."""
    parent = str(request.param)
    if os.stat(parent).st_dev != os.stat(_real(sys.prefix)).st_dev:
        pytest.skip(f"{parent} is on another filesystem than the virtualenv: no hard links")
    folder = Path(tempfile.mkdtemp(prefix="vivabank-venv-", dir=parent))
    try:
        subprocess.run(["cp", "-al", _real(sys.prefix), str(folder / "venv")], check=True)
        yield folder / "venv"
    finally:
        shutil.rmtree(folder)


GRADE_ONE = f"""
import json, django
django.setup()
from runner.api import Limits
from runner.worker import execute
print(json.dumps(execute({LAZY_TORCH!r}, Limits(time_s=20)).to_dict()))
"""


def test_a_worker_from_a_virtualenv_under_tmp_or_opt_grades_lazy_imports(
    supervisor: Supervisor, copied_venv: Path
) -> None:
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "true",
        "DATABASE_URL": "sqlite:///:memory:",
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        [str(copied_venv / "bin" / "python"), "-c", GRADE_ONE],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["status"] == "ok", result["stderr"]
    assert result["stdout"].splitlines()[:2] == [f"False {copied_venv}", "tensor([1., 1.])"]


def _cpu_group(pid: int) -> Path:
    """The process's group in the v1 cpu hierarchy, or its v2 group."""
    groups = {}
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        groups.update({name: path for name in controllers.split(",")})
    if "cpu" in groups:
        return Path("/sys/fs/cgroup/cpu" + groups["cpu"])
    return Path("/sys/fs/cgroup" + groups[""])


def _quota_cpus(folder: Path) -> float | None:
    if (folder / "cpu.max").exists():
        quota, period = (folder / "cpu.max").read_text().split()
        return None if quota == "max" else int(quota) / int(period)
    if (folder / "cpu.cfs_quota_us").exists():
        microseconds = int((folder / "cpu.cfs_quota_us").read_text())
        period_us = int((folder / "cpu.cfs_period_us").read_text())
        return None if microseconds < 0 else microseconds / period_us
    return None


def _effective_quota_cpus(pid: int) -> float | None:
    """The smallest quota on the way from the process's group up to the hierarchy's root."""
    group = _cpu_group(pid)
    quotas = [q for folder in (group, *group.parents) if (q := _quota_cpus(folder)) is not None]
    return min(quotas, default=None)


def _require_cpu_accounting(supervisor: Supervisor) -> None:
    if settings.RUNNER_CPU_QUOTA <= 0:
        pytest.skip("RUNNER_CPU_QUOTA=0: this deployment runs without a CPU quota")
    if not supervisor.cgroups.cpu.available or supervisor.cgroups.cpu.usage_s() is None:
        pytest.skip(f"no CPU quota or accounting here: {supervisor.probe()['cpu_quota']}")


def test_waiting_children_sit_under_a_one_cpu_quota(supervisor: Supervisor) -> None:
    _require_cpu_accounting(supervisor)
    assert supervisor.zygote is not None
    run("pass")
    supervisor.top_up()  # as a worker does after each task

    def under_quota() -> bool:
        # A child is handed over as soon as it is forked; it joins its group a moment later.
        supervisor.zygote.collect_ready()  # type: ignore[union-attr]  # asserted above
        pids = supervisor.zygote.standby_pids()  # type: ignore[union-attr]
        return bool(pids) and all(
            _effective_quota_cpus(pid) == settings.RUNNER_CPU_QUOTA for pid in pids
        )

    deadline = time.monotonic() + 10
    while not under_quota() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert under_quota()
    assert supervisor.probe()["cpu_quota"] == f"{settings.RUNNER_CPU_QUOTA:g} CPU per slot"


def _cores_used(supervisor: Supervisor, source: str) -> float:
    """CPU seconds the slot's cgroup accounted during the job, per second of wall time."""
    before, started = supervisor.cgroups.cpu.usage_s(), time.monotonic()
    run(source)
    wall, after = time.monotonic() - started, supervisor.cgroups.cpu.usage_s()
    assert before is not None
    assert after is not None
    assert after - before > 0.1, "the slot's CPU accounting saw no work"
    return (after - before) / wall


BUSY_FORKS = """
import os, time
end = time.monotonic() + 2.0
children = []
for _ in range(8):
    pid = os.fork()
    if pid == 0:
        while time.monotonic() < end:
            pass
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
"""
SIXTEEN_THREADS = """
import time, torch
torch.set_num_threads(16)
a = torch.randn(512, 512)
end = time.monotonic() + 2.0
while time.monotonic() < end:
    a @ a
print(torch.get_num_threads())
"""


# A ceiling only: a busy host can lower the figure, never raise it, so this cannot flake;
# on an idle 2-core host a slot without a quota reaches about 1.9.
@pytest.mark.parametrize("source", [BUSY_FORKS, SIXTEEN_THREADS], ids=["8 forks", "16 threads"])
def test_a_busy_job_uses_at_most_about_one_core(supervisor: Supervisor, source: str) -> None:
    _require_cpu_accounting(supervisor)
    assert _cores_used(supervisor, source) <= settings.RUNNER_CPU_QUOTA * 1.25

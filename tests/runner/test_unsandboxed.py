"""Without namespaces the runner refuses, unless development allows rlimits only, and says so."""

import os

import pytest

from runner import supervisor as supervisor_module
from runner.api import Limits, Status
from runner.sandbox.probe import sandbox_unavailable_reason
from runner.supervisor import Supervisor, SupervisorConfig


def test_a_process_that_is_not_root_is_told_why_it_cannot_sandbox() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.setgroups([])
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)
        os.write(write, (sandbox_unavailable_reason() or "").encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    assert "does not run as root" in os.read(read, 4096).decode()
    os.close(read)


def test_root_with_namespaces_can_sandbox() -> None:
    if os.geteuid() != 0 and os.environ.get("CI") != "true":
        pytest.skip("the sandbox needs root")
    assert sandbox_unavailable_reason() is None


@pytest.fixture
def no_namespaces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(supervisor_module, "sandbox_unavailable_reason", lambda: "no namespaces")


@pytest.mark.usefixtures("no_namespaces")
def test_it_refuses_to_run_when_the_sandbox_is_unavailable() -> None:
    sup = Supervisor(SupervisorConfig(allow_unsandboxed=False))
    try:
        outcome = sup.run({"kind": "exec", "source": "print(1)"}, Limits(), device="cpu")
        assert sup.zygote is None
        assert outcome.status == Status.INTERNAL
        assert "refusing to run" in outcome.message
    finally:
        sup.close()


@pytest.mark.usefixtures("no_namespaces")
def test_the_development_setting_runs_with_rlimits_only() -> None:
    sup = Supervisor(SupervisorConfig(allow_unsandboxed=True))
    try:
        source = "import os\nprint(os.getuid())"
        outcome = sup.run({"kind": "exec", "source": source}, Limits(time_s=20), device="cpu")
        assert not sup.sandboxed
        assert outcome.status == Status.OK
        assert outcome.stdout == f"{os.getuid()}\n"  # no uid drop: only rlimits apply
    finally:
        sup.close()

"""CUDA jobs: a clear refusal without a device; on a GPU machine, a fresh context per job."""

from __future__ import annotations

import time
import uuid

import pytest

from runner.api import Device, GradingJob, Status
from runner.supervisor import Supervisor
from runner.worker import execute, grade
from tests.runner.conftest import CASES, CORRECT, REFERENCE


def _job(device: Device) -> GradingJob:
    return GradingJob(
        job_id=str(uuid.uuid4()),
        source=CORRECT,
        entry_point="f",
        reference_source=REFERENCE,
        cases=CASES,
        device=device,
    )


def test_the_zygote_never_initialises_cuda(supervisor: Supervisor) -> None:
    assert supervisor.zygote is not None
    assert supervisor.zygote.hello["cuda_initialized"] is False


def test_a_cuda_job_without_a_device_fails_clearly(supervisor: Supervisor) -> None:
    if supervisor.cuda_devices:
        pytest.skip("this machine has a CUDA device")
    result = grade(_job(Device.CUDA))
    assert result.status == Status.INTERNAL
    assert "no CUDA device" in result.message


def test_an_any_device_job_runs_on_cpu(supervisor: Supervisor) -> None:
    result = grade(_job(Device.ANY))
    assert result.device == "cpu"
    assert result.score == 1.0


@pytest.fixture
def gpu(supervisor: Supervisor) -> Supervisor:
    if not supervisor.cuda_devices:
        pytest.skip("no CUDA device here")
    return supervisor


@pytest.mark.gpu
def test_a_cuda_job_grades_on_the_gpu(gpu: Supervisor) -> None:
    result = grade(_job(Device.CUDA))
    assert result.device == "cuda"
    assert result.status == Status.OK, result.message
    assert result.score == 1.0


# An out-of-range index trips a device-side assert, at once and every time. The error is sticky:
# the process's CUDA context refuses every later call, here one made after catching the first.
STICKY = """\
import torch

def f(x):
    try:
        torch.zeros(1, device="cuda")[torch.tensor([5], device="cuda")]
        torch.cuda.synchronize()
    except RuntimeError:
        pass
    return torch.zeros_like(x, device="cuda")  # the context is still poisoned here
"""


@pytest.mark.gpu
def test_a_sticky_cuda_error_does_not_poison_the_next_job(gpu: Supervisor) -> None:
    poisoned = grade(GradingJob.from_dict(_job(Device.CUDA).to_dict() | {"source": STICKY}))
    after = grade(_job(Device.CUDA))

    [case] = poisoned.cases
    assert poisoned.status == Status.OK, poisoned.message  # it ran to the end, no time-out
    assert (poisoned.score, case.passed) == (0.0, False)
    assert "device-side assert triggered" in case.message
    assert "still poisoned" in case.message  # raised again by the call after the first
    assert (after.status, after.device, after.score) == (Status.OK, "cuda", 1.0)


@pytest.mark.gpu
def test_it_measures_cuda_context_creation(gpu: Supervisor) -> None:
    source = (
        "import time, torch\n"
        "start = time.perf_counter()\n"
        "torch.zeros(1, device='cuda')\n"
        "torch.cuda.synchronize()\n"
        "print(f'{(time.perf_counter() - start) * 1000:.1f}')\n"
    )
    timings = []
    for _ in range(3):
        started = time.perf_counter()
        result = execute(source, device=Device.CUDA)
        assert result.status == Status.OK, result.stderr
        timings.append((float(result.stdout), (time.perf_counter() - started) * 1000))
    print("cuda context creation ms (in child, whole job):", timings)
    assert all(inner > 0 for inner, _ in timings)

"""Efficiency in the sandbox: kernel CPU time of the timed runs and tensor memory of the call."""

from __future__ import annotations

import uuid

from runner.api import GradingJob, GradingResult, Status
from runner.supervisor import Supervisor
from runner.worker import grade

REFERENCE = "import torch\ndef total(x):\n    return (x * x).sum(dim=1)\n"
CASES = [
    {
        "name": "big",
        "seed": 21,
        "args": [{"random": [1000, 400]}],
        "checks": ["efficiency"],
        "compare": {"rtol": 1e-4, "atol": 1e-3},
    }
]


def _grade(source: str, **efficiency: float) -> GradingResult:
    job = GradingJob(
        job_id=str(uuid.uuid4()),
        source=source,
        entry_point="total",
        reference_source=REFERENCE,
        cases=CASES,
        efficiency=efficiency,
    )
    return grade(job)


def test_the_reference_itself_is_efficient(supervisor: Supervisor) -> None:
    result = _grade(REFERENCE, max_time_ratio=5.0, max_memory_ratio=3.0)
    assert (result.status, result.score) == (Status.OK, 1.0), result.cases


def test_a_python_loop_takes_too_much_cpu_time(supervisor: Supervisor) -> None:
    loop = (
        "import torch\ndef total(x):\n"
        "    return torch.tensor([sum(v * v for v in r) for r in x.tolist()])\n"
    )
    result = _grade(loop, max_time_ratio=5.0)
    assert result.score == 0.0
    assert result.cases[0].message.startswith("case 1: CPU time "), result.cases


def test_materialising_a_big_intermediate_uses_too_much_memory(supervisor: Supervisor) -> None:
    wasteful = (
        "import torch\ndef total(x):\n"
        "    outer = x.unsqueeze(2) * x.unsqueeze(1)\n"
        "    return outer.diagonal(dim1=1, dim2=2).sum(dim=1)\n"
    )
    result = _grade(wasteful, max_memory_ratio=3.0)
    assert result.score == 0.0
    assert result.cases[0].message.startswith("case 1: peak memory "), result.cases


def test_a_buffer_made_at_load_and_filled_with_out_counts_as_memory(
    supervisor: Supervisor,
) -> None:
    """The intermediate lives in a module-level buffer made before the call, written with
    `out=`: no allocation happens during the call, and the memory is held all the same."""
    preallocated = (
        "import torch\n"
        "SCRATCH = torch.empty(1000 * 400 * 400)\n"
        "def total(x):\n"
        "    outer = SCRATCH[: x.numel() * x.shape[1]].view(x.shape[0], x.shape[1], x.shape[1])\n"
        "    torch.mul(x.unsqueeze(2), x.unsqueeze(1), out=outer)\n"
        "    return outer.diagonal(dim1=1, dim2=2).sum(dim=1)\n"
    )
    result = _grade(preallocated, max_memory_ratio=3.0)
    assert result.score == 0.0, result.cases
    assert result.cases[0].message.startswith("case 1: peak memory "), result.cases


def test_writing_into_its_own_arguments_is_not_counted(supervisor: Supervisor) -> None:
    in_place = "import torch\ndef total(x):\n    return x.mul_(x).sum(dim=1)\n"
    result = _grade(in_place, max_memory_ratio=3.0)
    assert (result.status, result.score) == (Status.OK, 1.0), result.cases


def test_copies_kept_alive_through_detach_or_data_count_as_memory(supervisor: Supervisor) -> None:
    """The tensor an operation returned dies at once; its storage lives on through the
    alias `.detach()` or `.data` made of it."""
    for alias in ("detach()", "data"):
        hoarding = (
            "import torch\ndef total(x):\n"
            f"    kept = [(x * 1.0).{alias} for _ in range(12)]\n"
            "    return (x * x).sum(dim=1) + 0 * sum(k.sum() for k in kept)\n"
        )
        result = _grade(hoarding, max_memory_ratio=3.0)
        assert result.score == 0.0, (alias, result.cases)
        assert result.cases[0].message.startswith("case 1: peak memory "), result.cases


def test_the_timed_calls_cannot_be_told_from_the_compared_one_by_the_seed(
    supervisor: Supervisor,
) -> None:
    """Slow only where it guesses nobody times it: the generators' seed is the case's own in
    every run, so the guess takes the slow path in the timed calls too."""
    two_faced = (
        "import torch\ndef total(x):\n"
        f"    if torch.initial_seed() != {CASES[0]['seed']}:\n"
        "        return (x * x).sum(dim=1)\n"
        "    return torch.tensor([sum(v * v for v in r) for r in x.tolist()])\n"
    )
    result = _grade(two_faced, max_time_ratio=5.0)
    assert result.score == 0.0, result.cases
    assert result.cases[0].message.startswith("case 1: CPU time "), result.cases


def test_a_tensor_made_at_load_and_used_in_the_call_counts_as_memory(
    supervisor: Supervisor,
) -> None:
    """Work done as the answer loads, kept in a big tensor the call only reads: the memory is
    the call's all the same."""
    made_at_load = (
        "import torch\n"
        "TABLE = torch.ones(1000, 400, 40)\n"
        "def total(x):\n"
        "    return (x * x).sum(dim=1) + 0 * TABLE.sum()\n"
    )
    result = _grade(made_at_load, max_memory_ratio=3.0)
    assert result.score == 0.0, result.cases
    assert result.cases[0].message.startswith("case 1: peak memory "), result.cases


def test_timing_calls_that_run_out_of_memory_are_said_in_the_students_words(
    supervisor: Supervisor,
) -> None:
    """Right and lean in the graded run's calls; from the third call on (the timing child
    makes five) it holds far more than the memory limit."""
    greedy = (
        "import torch\nCALLS = []\ndef total(x):\n"
        "    CALLS.append(1)\n"
        "    if len(CALLS) > 2:\n"
        "        hoard = [torch.ones(1 << 27) for _ in range(64)]\n"
        "    return (x * x).sum(dim=1)\n"
    )
    result = _grade(greedy, max_time_ratio=5.0)
    assert result.score == 0.0, result.cases
    assert result.cases[0].message == (
        "case 1: the repeated calls made to time the answer did not finish: the code used "
        "more memory than allowed"
    ), result.cases

"""The benchmark's question: a small autograd function, answered by a copy of its reference."""

from __future__ import annotations

import os
from typing import Any

from runner.types import GradingJob

REFERENCE = """
import torch

def weighted_tanh_loss(x, w):
    return torch.tanh(x @ w).pow(2).mean()
"""
CASES: list[dict[str, Any]] = [
    {
        "name": "small",
        "args": [
            {"random": [4, 3], "requires_grad": True},
            {"random": [3, 2], "requires_grad": True},
        ],
        "checks": ["gradients"],
    },
    {
        "name": "batch",
        "seed": 5,
        "args": [
            {"random": [16, 8], "requires_grad": True},
            {"random": [8, 4], "requires_grad": True},
        ],
        "checks": ["gradients"],
    },
]


def bench_job(index: int) -> GradingJob:
    """The benchmark's question, answered correctly by a copy of the reference."""
    return GradingJob(
        job_id=f"bench-{os.getpid()}-{index}",
        source=REFERENCE,
        entry_point="weighted_tanh_loss",
        reference_source=REFERENCE,
        cases=CASES,
    )

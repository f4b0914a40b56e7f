"""The warm-up runs: in the zygote before it forks, and in each standby child before it is ready.

Both run the grading harness on fixed cases, so the imports, lazy initialisations and
first-touch memory a real grading needs are already done when a job arrives.
"""

from __future__ import annotations

from typing import Any

WARM_SOURCE = """
import torch

def warm(x, w):
    return torch.tanh(x @ w).sum(dim=1)

def train_step(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss
"""
_WARM_CASES: list[dict[str, Any]] = [
    {
        "name": "warm",
        "args": [{"random": [3, 4], "requires_grad": True}, {"random": [4, 2], "dtype": "float64"}],
        "checks": ["gradients", "purity", "requires_grad", "determinism"],
    },
    {
        "name": "warm upstream",
        "args": [
            {"random": [3, 4], "dtype": "float64", "requires_grad": True},
            {"random": [4, 2], "dtype": "float64"},
        ],
        "checks": [{"kind": "gradients", "upstream": "ones"}, "gradcheck", "grad_accumulates"],
    },
]


# Without autograd: a backward in the zygote starts autograd's device threads, which initialise
# CUDA, and every child forked after that fails with "CUDA error: initialization error".
_FORWARD_CASES: list[dict[str, Any]] = [
    {
        "name": "warm forward",
        "args": [{"random": [3, 4]}, {"random": [4, 2], "dtype": "float64"}],
        "checks": ["purity", "determinism", "no_graph"],
    },
]


def warm_harness(*, autograd: bool) -> None:
    # Lazy imports (sympy through torch.fx, optimisers...) would otherwise happen in every child.
    import torch.fx.experimental.symbolic_shapes  # noqa: F401

    from runner.harness.child import run_request

    warm = [("warm", _WARM_CASES), ("train_step", [_TRAIN_CASE])]
    for entry_point, cases in warm if autograd else [("warm", _FORWARD_CASES)]:
        run_request(_request(entry_point, cases))


def warm_child() -> None:
    """A forward run in a fresh standby child, before it says it is ready.

    A forked child copies each page of the zygote it writes to (reference counts, the
    allocators' free lists), about 500 pages for a small grading: done here, that copying
    happens while the child waits for a job rather than while it runs one. Forward only: a
    backward could start autograd's device threads, which would initialise CUDA in a GPU child.
    """
    from runner.harness.child import run_request

    run_request(_request("warm", _FORWARD_CASES))


def _request(entry_point: str, cases: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "source": WARM_SOURCE,
        "entry_point": entry_point,
        "cases": cases,
        "forbidden": ["torch.linalg.inv"],
        "device": "cpu",
        "role": "student",
    }


_TRAIN_CASE: dict[str, Any] = {
    "name": "warm training",
    "kind": "training",
    "model": {"mlp": [4, 8, 1]},
    "data": {"x": {"random": [8, 4]}, "y": {"random": [8, 1]}},
    "loss": "mse",
    "optimizer": {"adam": {"lr": 0.01}},
    "steps": 2,
    "stages": [{"check": "runs", "weight": 1}],
}

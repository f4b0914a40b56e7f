"""One warm supervisor for the whole runner suite (starting a zygote imports torch)."""

import os
from collections.abc import Iterator

import pytest

from runner import registry
from runner.supervisor import Supervisor

REFERENCE = "import torch\n# REFERENCE-MARKER-7f3a\ndef f(x):\n    return torch.tanh(x) * 2\n"
CORRECT = "import torch\n\ndef f(x):\n    return torch.tanh(x) * 2\n"
CASES = [
    {
        "name": "random batch",
        "seed": 3,
        "args": [{"random": [3, 4], "requires_grad": True}],
        "checks": ["gradients"],
    },
]


@pytest.fixture(scope="session")
def supervisor() -> Iterator[Supervisor]:
    sup = registry.get_supervisor()
    refusal = sup.refusal()
    if refusal:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the sandbox must be available under CI: {refusal}")
        pytest.skip(refusal)
    yield sup
    registry.shutdown()

"""One warm supervisor for the whole runner suite (starting a zygote imports torch)."""

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
    if sup.refusal():
        pytest.skip(sup.refusal() or "")
    yield sup
    registry.shutdown()

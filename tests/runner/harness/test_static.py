"""The static look for forbidden names sees through aliases and simple tricks."""

from __future__ import annotations

import pytest

from runner.harness.static import find_forbidden

INV = ["torch.linalg.inv"]


@pytest.mark.parametrize(
    "source",
    [
        "import torch\ny = torch.linalg.inv(x)",
        "import torch as t\ny = t.linalg.inv(x)",
        "from torch.linalg import inv\n",
        "from torch.linalg import inv as invert\n",
        "from torch import linalg\ny = linalg.inv(x)",
        "import torch\nla = torch.linalg\ny = la.inv(x)",
        "import torch\nf = getattr(torch.linalg, 'inv')",
        "import torch\nf = getattr(torch.linalg, 'in' + 'v')",
        "import torch\nname = 'inv'\nf = getattr(torch.linalg, name)",
        "t = __import__('torch')\ny = t.linalg.inv(x)",
        "import importlib\nla = importlib.import_module('torch.linalg')\nla.inv(x)",
        "from torch.linalg import *\n",
        "eval('__import__(\"torch\").linalg.inv(x)')",
        "import torch.linalg\ntorch.linalg.inv(x)",
    ],
)
def test_it_finds_a_forbidden_function_however_it_is_reached(source: str) -> None:
    assert find_forbidden(source, INV) == INV


@pytest.mark.parametrize(
    "source",
    [
        "import torch\ny = torch.linalg.solve(a, b)",
        "import torch\ninv = 3\ny = inv + 1",
        "def inv(x):\n    return x",
        "import numpy as np\ny = np.linalg.inv(x)",
        "this is not python",
    ],
)
def test_it_does_not_flag_allowed_code(source: str) -> None:
    assert find_forbidden(source, INV) == []


def test_a_forbidden_module_covers_everything_inside_it() -> None:
    source = "from torch.func import grad\ng = grad(f)"
    assert find_forbidden(source, ["torch.func"]) == ["torch.func"]
    assert find_forbidden("import torch.func", ["torch.func"]) == ["torch.func"]


def test_a_forbidden_tensor_method_matches_any_call_of_that_method() -> None:
    source = "def f(x):\n    return x.sigmoid()"
    assert find_forbidden(source, ["torch.Tensor.sigmoid"]) == ["torch.Tensor.sigmoid"]


def test_several_names_are_reported_sorted() -> None:
    source = "import torch.nn.functional as F\nimport torch\nF.softmax(x, 1)\ntorch.softmax(x, 1)"
    found = find_forbidden(source, ["torch.softmax", "torch.nn.functional.softmax"])
    assert found == ["torch.nn.functional.softmax", "torch.softmax"]

"""Inputs built from specs: literals, tensors, random draws, and seeding."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
import torch

from runner.harness.guard import Guard
from runner.harness.values import build_values, seed_everything
from tests.runner.harness.helpers import grade


def test_literals_pass_through_and_tensors_get_their_dtype() -> None:
    built = build_values([3, 0.5, "mean", None, {"tensor": [1, 2], "dtype": "int32"}], seed=0)
    assert built[:4] == [3, 0.5, "mean", None]
    assert built[4].dtype == torch.int32
    assert built[4].tolist() == [1, 2]


def test_a_plain_mapping_becomes_a_dict_of_built_values() -> None:
    built = build_values({"scale": 2.0, "x": {"tensor": [1.0]}}, seed=0)
    assert built["scale"] == 2.0
    assert isinstance(built["x"], torch.Tensor)


def test_the_same_seed_gives_the_same_draws_and_another_seed_does_not() -> None:
    spec = [{"random": [4, 3]}, {"random": [5], "distribution": "uniform"}]
    first, again, other = (build_values(spec, s) for s in (7, 7, 8))
    assert torch.equal(first[0], again[0])
    assert torch.equal(first[1], again[1])
    assert not torch.equal(first[0], other[0])


@pytest.mark.parametrize(
    ("spec", "check"),
    [
        ({"distribution": "normal", "scale": 50.0}, lambda t: t.std() > 20),
        (
            {"distribution": "uniform", "low": 2, "high": 3},
            lambda t: (t >= 2).all() and (t < 3).all(),
        ),
        ({"distribution": "randint", "low": 5, "high": 7}, lambda t: set(t.tolist()) <= {5, 6}),
        ({"distribution": "bernoulli", "scale": 0.5}, lambda t: set(t.tolist()) == {0.0, 1.0}),
    ],
)
def test_each_distribution_draws_from_its_range(spec: dict[str, object], check: object) -> None:
    tensor = build_values({"random": [400], **spec}, seed=3)
    assert callable(check)
    assert check(tensor.flatten())


def test_randint_defaults_to_int64_and_floats_to_float32() -> None:
    assert build_values({"random": [2], "distribution": "randint"}, 0).dtype == torch.int64
    assert build_values({"random": [2]}, 0).dtype == torch.float32
    assert build_values({"random": [2], "dtype": "bfloat16"}, 0).dtype == torch.bfloat16


def test_requires_grad_makes_a_leaf_that_requires_grad() -> None:
    tensor = build_values({"random": [2], "requires_grad": True}, 0)
    assert tensor.requires_grad
    assert tensor.is_leaf


@pytest.mark.parametrize(
    "spec",
    [
        {"random": [2, 3, 4], "contiguous": False, "requires_grad": True},
        {"tensor": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "contiguous": False},
    ],
)
def test_contiguous_false_keeps_the_values_in_a_layout_view_refuses(spec: dict[str, Any]) -> None:
    (laid_out,) = build_values([spec], seed=3)
    (plain,) = build_values([{**spec, "contiguous": True}], seed=3)
    assert torch.equal(laid_out, plain)
    assert not laid_out.is_contiguous()
    assert laid_out.is_leaf
    assert laid_out.requires_grad == spec.get("requires_grad", False)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        laid_out.view(-1)


def test_an_answer_that_views_across_a_non_contiguous_input_fails_where_reshape_passes() -> None:
    x = {"random": [3, 4, 5], "contiguous": False, "requires_grad": True}
    cases = [{"args": [x], "checks": ["gradients", "purity"]}]
    reference = "def f(x):\n    return x.reshape(12, 5) * 2\n"
    assert grade(reference, reference, cases)[0] == 1.0
    score, results, _status, _message = grade(
        "def f(x):\n    return x.view(12, 5) * 2\n", reference, cases
    )
    assert score == 0.0
    assert "view size is not compatible" in results[0].message


def test_seed_everything_seeds_torch_random_and_numpy() -> None:
    seed_everything(11)
    first = (torch.rand(1).item(), random.random(), np.random.rand())  # noqa: S311, NPY002
    seed_everything(11)
    assert (torch.rand(1).item(), random.random(), np.random.rand()) == first  # noqa: S311, NPY002


def test_seed_everything_gives_the_stream_torch_manual_seed_gives() -> None:
    seed_everything(23)
    ours = torch.rand(4)
    torch.manual_seed(23)
    assert torch.equal(torch.rand(4), ours)


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_seeding_passes_a_guard_that_forbids_torchs_seeding_functions(device: str) -> None:
    """A question may forbid the global seeding functions; the harness's own seeding before
    each call runs while the guard has replaced them, and must not count as the answer's."""
    guard = Guard(["torch.random.manual_seed", "torch.cuda.manual_seed_all"])
    with guard.installed():
        seed_everything(29, device)
    assert guard.hits == []
    ours = torch.rand(4)
    torch.manual_seed(29)
    assert torch.equal(torch.rand(4), ours)

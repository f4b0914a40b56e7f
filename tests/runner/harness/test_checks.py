"""Every check kind, with a correct and an incorrect answer, run in-process."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from runner.api import Status
from runner.harness import child_checks
from tests.runner.harness.helpers import grade, only_message

GRAD_INPUT = {"random": [3, 4], "requires_grad": True}

SQUARE = "def f(x):\n    return x * x\n"
SQUARE_DETACHED_GRAD = """
import torch
class Half(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x          # forgot the factor 2
def f(x):
    return Half.apply(x)
"""


def case(*checks: Any, **fields: Any) -> list[dict[str, Any]]:
    return [{"args": fields.pop("args", [GRAD_INPUT]), "checks": list(checks), **fields}]


def test_gradients_pass_for_the_right_derivative_and_fail_for_a_wrong_one() -> None:
    assert grade(SQUARE, SQUARE, case("gradients"))[0] == 1.0
    score, results, _status, _message = grade(
        SQUARE_DETACHED_GRAD, SQUARE, case("gradients", compare_output=False)
    )
    assert score == 0.0
    assert only_message(results).startswith("case 1: gradients[0]: max abs error")


def test_gradients_use_a_given_upstream_gradient() -> None:
    upstream = {"kind": "gradients", "upstream": {"tensor": [[1.0, 0.0], [0.0, 2.0]]}}
    args = [{"tensor": [[1.0, 2.0], [3.0, 4.0]], "requires_grad": True}]
    assert grade(SQUARE, SQUARE, case(upstream, args=args))[0] == 1.0
    assert grade(SQUARE_DETACHED_GRAD, SQUARE, case(upstream, args=args))[0] == 0.0


def test_gradients_report_an_input_that_got_none() -> None:
    detached = "def f(x):\n    return x.detach() * x.detach() + 0 * x.sum().detach()\n"
    _score, results, _status, _message = grade(detached, SQUARE, case("gradients"))
    assert "input 1 received no gradient" in only_message(results)


def test_requires_grad_defaults_to_the_references_flag_or_takes_expected() -> None:
    no_graph = "import torch\ndef f(x):\n    with torch.no_grad():\n        return x * x\n"
    assert grade(SQUARE, SQUARE, case("requires_grad"))[0] == 1.0
    _score, results, _status, _message = grade(no_graph, SQUARE, case("requires_grad"))
    assert only_message(results) == "case 1: output.requires_grad is False, expected True"
    expected_false = case({"kind": "requires_grad", "expected": False})
    assert grade(no_graph, no_graph, expected_false)[0] == 1.0


def test_is_leaf_checks_the_output() -> None:
    detach = "def f(x):\n    return (x * x).detach()\n"
    check = case({"kind": "is_leaf", "expected": True}, compare_output=False)
    assert grade(detach, detach, check)[0] == 1.0
    _score, results, _status, _message = grade(SQUARE, detach, check)
    assert only_message(results) == "case 1: output.is_leaf is False, expected True"


def test_grad_accumulates_catches_an_answer_that_zeroes_grad() -> None:
    zeroing = "def f(x):\n    x.grad = None\n    return x * x\n"
    checks = case("grad_accumulates", compare_output=False)
    assert grade(SQUARE, SQUARE, checks)[0] == 1.0
    _score, results, _status, _message = grade(zeroing, SQUARE, checks)
    assert "gradients do not accumulate over two backward calls" in only_message(results)


def test_purity_catches_an_in_place_change_to_an_input() -> None:
    impure = "def f(x):\n    x.mul_(2)\n    return x\n"
    pure = "def f(x):\n    return x * 2\n"
    checks = case("purity", args=[{"random": [2, 3]}])
    assert grade(pure, pure, checks)[0] == 1.0
    _score, results, _status, _message = grade(impure, pure, checks)
    assert "an input was modified in place (inputs[0][0]: max abs error" in only_message(results)


def test_determinism_catches_unseeded_randomness() -> None:
    seeded = "import torch\ndef f(x):\n    return x + torch.rand(x.shape)\n"
    unseeded = (
        "import torch\n_g = torch.Generator()\n_n = [0]\n"
        "def f(x):\n    _n[0] += 1\n    _g.manual_seed(_n[0])\n"
        "    return x + torch.rand(x.shape, generator=_g)\n"
    )
    checks = case("determinism", compare_output=False, args=[{"random": [4]}])
    assert grade(seeded, seeded, checks)[0] == 1.0
    _score, results, _status, _message = grade(unseeded, seeded, checks)
    assert "two runs with the same seed differ" in only_message(results)


def test_student_and_reference_see_the_same_random_stream() -> None:
    seeded = (
        "import torch, random\ndef f(x):\n    return x + torch.rand(x.shape) + random.random()\n"
    )
    assert grade(seeded, seeded, case(args=[{"random": [5]}]))[0] == 1.0


def test_gradcheck_passes_a_right_backward_and_fails_a_wrong_one() -> None:
    right = SQUARE_DETACHED_GRAD.replace("grad * x  ", "2 * grad * x")
    checks = case("gradcheck", compare_output=False)
    assert grade(right, SQUARE, checks)[0] == 1.0
    _score, results, _status, _message = grade(SQUARE_DETACHED_GRAD, SQUARE, checks)
    assert only_message(results).startswith("case 1: gradcheck failed: ")


def test_patching_torch_gradcheck_in_the_answer_changes_nothing() -> None:
    patched = (
        "import torch\ntorch.autograd.gradcheck = lambda *a, **k: True\n" + SQUARE_DETACHED_GRAD
    )
    checks = case("gradcheck", compare_output=False)
    _score, results, _status, _message = grade(patched, SQUARE, checks)
    assert only_message(results).startswith("case 1: gradcheck failed: ")


@pytest.fixture
def restore_harness_gradcheck() -> Iterator[None]:
    original = child_checks._gradcheck
    yield
    child_checks._gradcheck = original


@pytest.mark.usefixtures("restore_harness_gradcheck")
def test_a_forged_gradcheck_verdict_still_needs_matching_gradients() -> None:
    # The answer reaches into the harness itself: the child's verdict is forged,
    # but the float64 gradients are compared in the supervisor.
    forged = (
        "import sys\nsys.modules['runner.harness.child_checks']._gradcheck = lambda *a, **k: True\n"
        + SQUARE_DETACHED_GRAD
    )
    checks = case("gradcheck", compare_output=False)
    _score, results, _status, _message = grade(forged, SQUARE, checks)
    assert "gradients differ from the expected ones" in only_message(results)


def test_gradcheck_accepts_an_autograd_function_as_the_entry_point() -> None:
    function_only = SQUARE_DETACHED_GRAD.replace("grad * x  ", "2 * grad * x").split("def f(x)")[0]
    reference = "def Half(x):\n    return x * x\n"
    score, _results, status, _message = grade(
        function_only, reference, case("gradcheck", "gradients"), entry_point="Half"
    )
    assert (score, status) == (1.0, Status.OK)


def test_efficiency_limits_the_time_ratio_to_the_reference() -> None:
    fast = "def f(x):\n    return x.sum()\n"
    slow = (
        "import torch\ndef f(x):\n    total = torch.zeros(())\n"
        "    for value in x.flatten().tolist():\n        total = total + value\n    return total\n"
    )
    checks = case("efficiency", args=[{"random": [200, 50]}], compare={"rtol": 1e-3})
    limits = {"max_time_ratio": 5.0}
    assert grade(fast, fast, checks, efficiency=limits)[0] == 1.0
    _score, results, _status, _message = grade(slow, fast, checks, efficiency=limits)
    assert "the reference's (limit 5×)" in only_message(results)
    assert only_message(results).startswith("case 1: time ")


def test_efficiency_limits_peak_memory() -> None:
    lean = "def f(x):\n    return x.sum()\n"
    wasteful = "import torch\ndef f(x):\n    big = x.repeat(50, 1)\n    return big.sum() / 50\n"
    checks = case("efficiency", args=[{"random": [100, 100]}], compare={"rtol": 1e-3})
    limits = {"max_memory_ratio": 5.0}
    assert grade(lean, lean, checks, efficiency=limits)[0] == 1.0
    _score, results, _status, _message = grade(wasteful, lean, checks, efficiency=limits)
    assert only_message(results).startswith("case 1: peak memory ")

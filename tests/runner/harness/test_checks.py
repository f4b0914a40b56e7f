"""Every check kind, with a correct and an incorrect answer, run in-process."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from typing import Any

import pytest
import torch

from runner.api import Status
from runner.harness import pristine
from tests.runner.harness.helpers import grade, only_message

GRAD_INPUT = {"random": [3, 4], "requires_grad": True}

SQUARE = "def f(x):\n    return x * x\n"


def _square_function(saves: str, backward: str, name: str = "Square") -> str:
    """x * x as an autograd.Function `name` (y is its output) whose forward runs `saves` and
    whose backward runs `backward` (lines of the method's body)."""
    body = textwrap.indent(textwrap.dedent(backward).strip(), " " * 8)
    return f"""
import torch
class {name}(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * x
        {saves}
        return y
    @staticmethod
    def backward(ctx, grad):
{body}
def f(x):
    return {name}.apply(x)
"""


SQUARE_DETACHED_GRAD = _square_function(
    "ctx.save_for_backward(x)",
    """
    (x,) = ctx.saved_tensors
    return grad * x  # forgot the factor 2
    """,
    name="Half",
)


def case(*checks: Any, **fields: Any) -> list[dict[str, Any]]:
    return [{"args": fields.pop("args", [GRAD_INPUT]), "checks": list(checks), **fields}]


def test_gradients_pass_for_the_right_derivative_and_fail_for_a_wrong_one() -> None:
    assert grade(SQUARE, SQUARE, case("gradients"))[0] == 1.0
    score, results, _status, _message = grade(
        SQUARE_DETACHED_GRAD, SQUARE, case("gradients", compare_output=False)
    )
    assert score == 0.0
    assert only_message(results).startswith("case 1: the gradient of x differs at index")


def test_gradients_use_a_given_upstream_gradient() -> None:
    upstream = {"kind": "gradients", "upstream": {"tensor": [[1.0, 0.0], [0.0, 2.0]]}}
    args = [{"tensor": [[1.0, 2.0], [3.0, 4.0]], "requires_grad": True}]
    assert grade(SQUARE, SQUARE, case(upstream, args=args))[0] == 1.0
    assert grade(SQUARE_DETACHED_GRAD, SQUARE, case(upstream, args=args))[0] == 0.0


SQUARE_EDITS_GRAD_OUTPUT = _square_function(
    "ctx.save_for_backward(x)",
    """
    (x,) = ctx.saved_tensors
    return grad.mul_(2 * x)  # right gradient, written into the caller's upstream tensor
    """,
)


@pytest.mark.parametrize("upstream", ["sum", {"random": [3, 4]}])
def test_gradients_catch_a_backward_that_edits_the_upstream_gradient(upstream: Any) -> None:
    check = {"kind": "gradients", "upstream": upstream}
    score, results, _status, _message = grade(SQUARE_EDITS_GRAD_OUTPUT, SQUARE, case(check))
    assert score == 0.0
    message = only_message(results)
    assert message.startswith("case 1: the backward changed the incoming gradient in place")


SQUARE_EDITS_ITS_OUTPUT = _square_function(
    "ctx.save_for_backward(x, y)",
    """
    x, y = ctx.saved_tensors
    return grad * 2 * x + y.zero_()  # right gradient, but the caller's output is now zeros
    """,
)


def test_gradients_catch_a_backward_that_edits_the_output_it_saved() -> None:
    score, results, _status, _message = grade(SQUARE_EDITS_ITS_OUTPUT, SQUARE, case("gradients"))
    assert score == 0.0
    assert only_message(results).startswith("case 1: the backward changed the call's output")


POSITIVE_INPUT = {"random": [3, 4], "distribution": "uniform", "low": 0.5, "high": 2.0}
KEPT_ON_CTX = _square_function("ctx.y = y", "y = ctx.y\nreturn grad * 2 * y.sqrt()")
SAVED = _square_function(
    "ctx.save_for_backward(y)", "(y,) = ctx.saved_tensors\nreturn grad * 2 * y.sqrt()"
)
FAKES_THE_REFUSAL = _square_function(
    "ctx.save_for_backward(y)",
    "raise RuntimeError('a variable was modified by an inplace operation')",
)


KEPT_ON_CTX_MESSAGE = (
    "the forward kept a tensor as {names} instead of saving it with ctx.save_for_backward "
    "(autograd then cannot check it was not changed in place before backward)"
)


def _saved_tensors_case() -> list[dict[str, Any]]:
    return case("saved_tensors", args=[{**POSITIVE_INPUT, "requires_grad": True}])


def test_saved_tensors_fails_an_output_kept_as_a_plain_attribute_of_ctx() -> None:
    score, results, _status, _message = grade(KEPT_ON_CTX, SQUARE, _saved_tensors_case())
    assert score == 0.0
    message = only_message(results)
    assert "backward used the edited values instead of refusing" in message
    assert "the gradient of x differs" in message


@pytest.mark.parametrize("answer", [SAVED, SQUARE], ids=["saved", "recorded by autograd"])
def test_saved_tensors_passes_an_output_autograd_keeps(answer: str) -> None:
    assert grade(answer, SAVED, _saved_tensors_case())[0] == 1.0


def test_saved_tensors_has_nothing_to_judge_on_an_output_that_cannot_be_edited() -> None:
    expanded = _square_function("ctx.y = y", "y = ctx.y\nreturn grad * 2 * y.sqrt()").replace(
        "        return y\n", "        return y[:1].expand(3, 4)\n"
    )
    reference = expanded.replace("ctx.y = y", "ctx.save_for_backward(y)").replace(
        "y = ctx.y", "(y,) = ctx.saved_tensors"
    )
    checks = case("saved_tensors", args=[{**POSITIVE_INPUT, "requires_grad": True}])
    assert grade(reference, reference, checks)[0] == 1.0
    # Only ctx is left to judge by.
    _score, results, _status, _message = grade(expanded, reference, checks)
    assert only_message(results) == "case 1: " + KEPT_ON_CTX_MESSAGE.format(names="ctx.y")


def test_saved_tensors_passes_an_output_returned_as_a_view_autograd_refuses_once_edited() -> None:
    # Autograd refuses backward through an edited view returned by a Function ("Output 0 of
    # Square is a view and its base ... has been modified inplace"): a refusal, as for a
    # tensor kept with save_for_backward, not the answer's error.
    viewed = SAVED.replace("        return y\n", "        return y.view(-1).view(3, 4)\n")
    assert grade(viewed, SAVED, _saved_tensors_case())[0] == 1.0
    # Kept on ctx instead, the view's refusal leaves only ctx to judge by.
    kept = viewed.replace("ctx.save_for_backward(y)", "ctx.y = y").replace(
        "(y,) = ctx.saved_tensors", "y = ctx.y"
    )
    _score, results, _status, _message = grade(kept, SAVED, _saved_tensors_case())
    assert only_message(results) == "case 1: " + KEPT_ON_CTX_MESSAGE.format(names="ctx.y")


@pytest.mark.parametrize("keeps", ["ctx.x = x", "ctx.x = x.detach()"])
def test_saved_tensors_fails_an_input_kept_as_a_plain_attribute_of_ctx(keeps: str) -> None:
    kept_on_ctx = _square_function(keeps, "return grad * 2 * ctx.x")
    score, results, _status, _message = grade(kept_on_ctx, SAVED, _saved_tensors_case())
    assert score == 0.0
    message = only_message(results)
    assert "with the inputs edited in place after the call, backward used the edited" in message
    assert "keep what backward needs with ctx.save_for_backward" in message


def test_saved_tensors_passes_an_input_kept_with_save_for_backward() -> None:
    saved = _square_function(
        "ctx.save_for_backward(x)", "(x,) = ctx.saved_tensors\nreturn grad * 2 * x"
    )
    assert grade(saved, SAVED, _saved_tensors_case())[0] == 1.0


@pytest.mark.parametrize(
    ("keeps", "reads", "names"),
    [
        ("ctx.y = y.clone()", "y = ctx.y", "ctx.y"),
        ("ctx.x = x.detach().clone()", "y = ctx.x * ctx.x", "ctx.x"),
        ("ctx.kept = [y.clone()]", "y = ctx.kept[0]", "ctx.kept[0]"),
        ("ctx.kept = {'y': y.clone()}", "y = ctx.kept['y']", "ctx.kept['y']"),
        ("ctx.a = x.clone()\n        ctx.b = y.clone()", "y = ctx.b", "ctx.a, ctx.b"),
    ],
)
def test_saved_tensors_fails_a_private_copy_kept_on_ctx(keeps: str, reads: str, names: str) -> None:
    # A copy is out of reach of the check's edits: only ctx itself shows it.
    kept_on_ctx = _square_function(keeps, f"{reads}\nreturn grad * 2 * y.sqrt()")
    score, results, _status, _message = grade(kept_on_ctx, SAVED, _saved_tensors_case())
    assert score == 0.0
    assert only_message(results) == "case 1: " + KEPT_ON_CTX_MESSAGE.format(names=names)


def test_saved_tensors_passes_numbers_and_flags_kept_on_ctx_beside_saved_tensors() -> None:
    saved = _square_function(
        "ctx.save_for_backward(y)\n        ctx.dim = 1\n        ctx.dtype = x.dtype\n"
        "        ctx.shape = [x.shape, 2.0]\n        ctx.wants = ctx.needs_input_grad",
        "(y,) = ctx.saved_tensors\nassert ctx.wants[0] and ctx.dim == 1\n"
        "return (grad * 2 * y.sqrt()).to(ctx.dtype)",
    )
    assert grade(saved, SAVED, _saved_tensors_case())[0] == 1.0


def test_saved_tensors_fails_a_backward_that_always_claims_the_refusal() -> None:
    score, results, _status, _message = grade(FAKES_THE_REFUSAL, SAVED, _saved_tensors_case())
    assert score == 0.0
    assert "without any edit" in only_message(results)


def test_gradients_report_an_input_that_got_none() -> None:
    detached = "def f(x):\n    return x.detach() * x.detach() + 0 * x.sum().detach()\n"
    _score, results, _status, _message = grade(detached, SQUARE, case("gradients"))
    assert "x received no gradient" in only_message(results)


def test_requires_grad_defaults_to_the_references_flag_or_takes_expected() -> None:
    no_graph = "import torch\ndef f(x):\n    with torch.no_grad():\n        return x * x\n"
    assert grade(SQUARE, SQUARE, case("requires_grad"))[0] == 1.0
    _score, results, _status, _message = grade(no_graph, SQUARE, case("requires_grad"))
    assert only_message(results) == "case 1: the output's requires_grad is False, expected True"
    expected_false = case({"kind": "requires_grad", "expected": False})
    assert grade(no_graph, no_graph, expected_false)[0] == 1.0


def test_requires_grad_without_expected_holds_every_output_tensor_to_the_references() -> None:
    # A tuple's second tensor that must not require grad (a logged gradient) was never looked
    # at: only the first tensor of the output was.
    pair = "import torch\ndef f(x):\n    y = x * x\n    return y, {second}\n"
    detached = pair.format(second="y.detach()")
    tracked = pair.format(second="y.detach().requires_grad_()")
    assert grade(detached, detached, case("requires_grad"))[0] == 1.0
    _score, results, _status, _message = grade(tracked, detached, case("requires_grad"))
    assert only_message(results) == (
        "case 1: output tensor 2's requires_grad is True, expected False"
    )


def test_is_leaf_checks_the_output() -> None:
    detach = "def f(x):\n    return (x * x).detach()\n"
    check = case({"kind": "is_leaf", "expected": True}, compare_output=False)
    assert grade(detach, detach, check)[0] == 1.0
    _score, results, _status, _message = grade(SQUARE, detach, check)
    assert only_message(results) == "case 1: the output's is_leaf is False, expected True"


def test_grad_accumulates_catches_an_answer_that_zeroes_grad() -> None:
    zeroing = "def f(x):\n    x.grad = None\n    return x * x\n"
    checks = case("grad_accumulates", compare_output=False)
    assert grade(SQUARE, SQUARE, checks)[0] == 1.0
    _score, results, _status, _message = grade(zeroing, SQUARE, checks)
    assert "gradients do not add up over two calls" in only_message(results)


# x * x whose call rebinds the caller's .grad to a copy of it: the values add up over calls.
SQUARE_REBINDS_GRAD = (
    "def f(x):\n    if x.grad is not None:\n        x.grad = x.grad.clone()\n    return x * x\n"
)
REPLACED_GRAD = (
    "the call replaced the .grad tensor of the input x with a new one (the caller's old .grad "
    "no longer changes); add into it in place, as backward() does"
)


def test_grad_accumulates_catches_an_answer_that_replaces_the_grad_tensor() -> None:
    checks = case("grad_accumulates", compare_output=False)
    _score, results, _status, _message = grade(SQUARE_REBINDS_GRAD, SQUARE, checks)
    assert only_message(results) == f"case 1: {REPLACED_GRAD}"


def test_purity_catches_an_in_place_change_to_an_input() -> None:
    impure = "def f(x):\n    x.mul_(2)\n    return x\n"
    pure = "def f(x):\n    return x * 2\n"
    checks = case("purity", args=[{"random": [2, 3]}])
    assert grade(pure, pure, checks)[0] == 1.0
    _score, results, _status, _message = grade(impure, pure, checks)
    assert only_message(results).startswith(
        "case 1: the input x was changed in place: its value differs at index"
    )


GRAD_ARGS = [{"random": [3], "requires_grad": True}, {"random": [3], "requires_grad": True}]
PURE_PRODUCT = "import torch\ndef f(x, w):\n    return (x * w).sum()\n"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "def f(x, w):\n    w.requires_grad_(False)\n    return (x * w).sum()\n",
            "switched requires_grad of the input w from True to False",
        ),
        (
            "def f(x, w):\n    out = (x * w).sum()\n    out.backward(retain_graph=True)\n"
            "    return out\n",
            "changed the gradient (.grad) of the input x",
        ),
        (
            "def f(x, w):\n    out = (x * w).sum()\n    out.backward(retain_graph=True)\n"
            "    x.grad = None\n    w.grad = None\n    return out\n",
            "changed the gradient (.grad) of the input x",
        ),
        (
            "import torch\ndef f(x, w):\n    torch.manual_seed(1234)\n    return (x * w).sum()\n",
            "reseeded or drew from a global random number generator",
        ),
        (
            "import random\ndef f(x, w):\n    random.random()\n    return (x * w).sum()\n",
            "reseeded or drew from a global random number generator (torch's or Python's",
        ),
    ],
    ids=[
        "requires_grad switched",
        "backward inside",
        "grad reset",
        "global rng reseeded",
        "python random drawn",
    ],
)
def test_purity_catches_side_effects_on_the_callers_state(source: str, expected: str) -> None:
    checks = case("purity", args=GRAD_ARGS)
    assert grade(PURE_PRODUCT, PURE_PRODUCT, checks)[0] == 1.0
    score, results, _status, _message = grade(source, PURE_PRODUCT, checks)
    assert score == 0.0
    assert expected in only_message(results)


# The input gradient of (x * w).sum() with respect to x, which is w.
GRAD_OF_X = (
    "import torch\ndef f(x, w):\n    (g,) = torch.autograd.grad((x * w).sum(), x)\n    return g\n"
)


# A hook on w's gradient accumulator node (not on w, where its hooks are listed), kept alive
# with the node past the call.
ACCUMULATOR_HOOK = (
    "_KEEP = []\ndef f(x, w):\n    node = (w * 1).grad_fn.next_functions[0][0]\n"
    "    {hook}\n    _KEEP.append(node)\n    return w.detach() * 1\n"
)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "def f(x, w):\n    w.register_hook(lambda g: g * 0)\n    return w.detach() * 1\n",
            "the call left a gradient hook on the input w; leave the caller's tensors as they were",
        ),
        (
            "def f(x, w):\n    w.register_post_accumulate_grad_hook(lambda t: None)\n"
            "    return w.detach() * 1\n",
            "the call left a gradient hook on the input w",
        ),
        (
            "import torch\ndef f(x, w):\n    with torch.no_grad():\n        w.clamp_(-1e6, 1e6)\n"
            "    return w.detach() * 1\n",
            "the call wrote into the input w in place (even if its values are unchanged, its "
            "version counter moved",
        ),
        (
            "def f(x, w):\n    gx, gw = x.grad, w.grad\n    x.grad = None\n    w.grad = None\n"
            "    (x * w).sum().backward()\n    g = x.grad\n    x.grad, w.grad = gx, gw\n"
            "    return g\n",
            "the call accumulated gradients into the .grad of the input x (and put it back); "
            "compute them without touching the caller's .grad, e.g. with torch.autograd.grad",
        ),
        (
            "def f(x, w):\n    w.grad = w.grad + 0\n    return w.detach() * 1\n",
            "the call replaced the .grad tensor of the input w with a new one",
        ),
        (
            "def f(x, w):\n    x.data = x.data.clone()\n    return w.detach() * 1\n",
            "the call replaced the storage of the input x (x.data = ...), so the caller's x no "
            "longer shares memory as it did; leave the caller's tensors as they were",
        ),
        (
            # Equal values, the same version, another storage and stride.
            "def f(x, w):\n    w.data = w.data.repeat_interleave(2)[::2]\n"
            "    return w.detach() * 1\n",
            "the call replaced the storage of the input w (x.data = ...)",
        ),
        (
            ACCUMULATOR_HOOK.format(hook="node.register_prehook(lambda grads: (grads[0] * 0,))"),
            "a later backward through the input w does not reach w.grad unchanged: the call "
            "left a hook on w's gradient path; leave the caller's tensors as they were",
        ),
        (
            # Passes on a gradient of ones (what a plain .sum() sends), spoils any other.
            ACCUMULATOR_HOOK.format(
                hook="node.register_prehook(lambda grads: (grads[0] if bool((grads[0] == 1)"
                ".all()) else grads[0] * 0,))"
            ),
            "a later backward through the input w does not reach w.grad unchanged",
        ),
        (
            ACCUMULATOR_HOOK.format(
                hook="node.register_hook(lambda *_: setattr(w, 'grad', w.grad * 0))"
            ),
            "a later backward through the input w does not reach w.grad unchanged",
        ),
        (
            ACCUMULATOR_HOOK.format(hook="node.register_prehook(lambda grads: 1 / 0)"),
            "a later backward through the input w raised (ZeroDivisionError: division by zero):"
            " the call left a hook on w's gradient path",
        ),
    ],
    ids=[
        "gradient hook",
        "post-accumulate hook",
        "value-preserving write",
        "grad put back",
        "grad rebound",
        "data replaced by a copy",
        "data replaced by a strided copy",
        "accumulator pre-hook",
        "accumulator pre-hook passing ones",
        "accumulator post-hook",
        "accumulator hook raising",
    ],
)
def test_purity_catches_what_the_call_leaves_on_an_input_beyond_its_values(
    source: str, expected: str
) -> None:
    checks = case("purity", args=GRAD_ARGS)
    score, results, _status, _message = grade(source, GRAD_OF_X, checks)
    assert score == 0.0
    assert expected in only_message(results)


@pytest.mark.parametrize(
    "source",
    [
        GRAD_OF_X,
        # A hook used during the call and removed before it returns leaves nothing behind.
        "import torch\ndef f(x, w):\n    seen = []\n"
        "    handle = x.register_hook(lambda g: seen.append(g))\n"
        "    torch.autograd.grad((x * w).sum(), x)\n    handle.remove()\n    return seen[0]\n",
        # Writing into a copy of an input is no write into the input.
        "import torch\ndef f(x, w):\n    c = w.detach().clone()\n    c.clamp_(-1e6, 1e6)\n"
        "    return c\n",
        # A hook on the gradient accumulator node removed before the call returns.
        "import torch\ndef f(x, w):\n    node = (x * 1).grad_fn.next_functions[0][0]\n"
        "    handle = node.register_prehook(lambda grads: (grads[0] * 0,))\n    handle.remove()\n"
        "    (g,) = torch.autograd.grad((x * w).sum(), x)\n    return g\n",
    ],
    ids=["autograd.grad", "hook removed", "write into a copy", "accumulator hook removed"],
)
def test_purity_passes_a_call_that_leaves_its_inputs_as_they_were(source: str) -> None:
    assert grade(source, GRAD_OF_X, case("purity", args=GRAD_ARGS))[0] == 1.0


SGD_STEP = (
    "import torch\ndef f(x, w):\n    (x * w).sum().backward()\n    with torch.no_grad():\n"
    "        w.sub_(0.1 * w.grad)\n    return w.detach().clone()\n"
)
# Backward twice into the caller's .grad, then one gradient taken back out of it.
BACKWARD_TWICE_UNDONE = (
    "import torch\ndef f(x, w):\n    out = (x * w).sum()\n    out.backward(retain_graph=True)\n"
    "    out.backward()\n    with torch.no_grad():\n        x.grad -= w\n        w.grad -= x\n"
    "    return out.detach()\n"
)


def test_purity_allows_the_writes_and_accumulations_the_reference_makes_itself() -> None:
    checks = case("purity", args=GRAD_ARGS)
    assert grade(SGD_STEP, SGD_STEP, checks)[0] == 1.0
    reference = RUNS_BACKWARD.format(scale="", again="")
    _score, results, _status, _message = grade(BACKWARD_TWICE_UNDONE, reference, checks)
    assert only_message(results) == (
        "case 1: the call accumulated gradients into the .grad of the input x twice, where "
        "once is expected"
    )


def test_purity_allows_a_storage_the_reference_replaces_itself() -> None:
    swap = "def f(x, w):\n    x.data = x.data.clone()\n    return w.detach() * 1\n"
    checks = case("purity", args=GRAD_ARGS)
    assert grade(swap, swap, checks)[0] == 1.0
    assert grade("def f(x, w):\n    return w.detach() * 1\n", swap, checks)[0] == 1.0


def test_purity_keeps_gradients_usable_for_the_gradients_check() -> None:
    checks = case("purity", "gradients", args=GRAD_ARGS)
    assert grade(PURE_PRODUCT, PURE_PRODUCT, checks)[0] == 1.0


def test_no_graph_catches_a_graph_built_and_then_detached() -> None:
    detached = "def f(x, w):\n    return (x * w).sum().detach()\n"
    under_no_grad = (
        "import torch\ndef f(x, w):\n    with torch.no_grad():\n        return (x * w).sum()\n"
    )
    on_detached = "def f(x, w):\n    return (x.detach() * w.detach()).sum()\n"
    checks = case("no_graph", args=GRAD_ARGS)
    assert grade(under_no_grad, under_no_grad, checks)[0] == 1.0
    assert grade(on_detached, under_no_grad, checks)[0] == 1.0
    score, results, _status, _message = grade(detached, under_no_grad, checks)
    assert score == 0.0
    assert "recorded autograd history" in only_message(results)


def test_an_autograd_function_entry_point_must_stay_one() -> None:
    right = SQUARE_DETACHED_GRAD.replace("grad * x  ", "2 * grad * x").split("def f(x)")[0]
    plain = "def Half(x):\n    return x * x\n"
    checks = case("gradients")
    assert grade(right, right, checks, entry_point="Half")[0] == 1.0
    score, results, status, message = grade(plain, right, checks, entry_point="Half")
    assert (score, status) == (0.0, Status.ERROR)
    assert "Half must be a subclass of torch.autograd.Function" in message
    assert "Half must be a subclass" in only_message(results)


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


def test_patching_torch_gradcheck_in_the_answer_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # In-process the answer's patch would outlive the test: monkeypatch puts torch's back.
    monkeypatch.setattr(torch.autograd, "gradcheck", torch.autograd.gradcheck)
    patched = (
        "import torch\ntorch.autograd.gradcheck = lambda *a, **k: True\n" + SQUARE_DETACHED_GRAD
    )
    checks = case("gradcheck", compare_output=False)
    _score, results, _status, _message = grade(patched, SQUARE, checks)
    assert only_message(results).startswith("case 1: gradcheck failed: ")


@pytest.fixture
def restore_harness_gradcheck() -> Iterator[None]:
    original = pristine.gradcheck
    yield
    pristine.gradcheck = original


@pytest.mark.usefixtures("restore_harness_gradcheck")
def test_a_forged_gradcheck_verdict_still_needs_matching_gradients() -> None:
    # In-process there is no static check: the answer reaches into the harness and forges
    # the child's verdict, but the float64 gradients for a random upstream are compared.
    forged = (
        "import sys\nsys.modules['runner.harness.pristine'].gradcheck = lambda *a, **k: True\n"
        + SQUARE_DETACHED_GRAD
    )
    checks = case("gradcheck", compare_output=False)
    _score, results, _status, _message = grade(forged, SQUARE, checks)
    assert "with a random upstream gradient (float64), the gradient of x" in only_message(results)


def test_gradcheck_catches_a_backward_that_ignores_the_upstream_gradient() -> None:
    # A backward that returns the local derivative alone agrees with ones upstream only.
    ignores = SQUARE_DETACHED_GRAD.replace("return grad * x  ", "return 2 * x  ")
    forged = (
        "import sys\nsys.modules['runner.harness.pristine'].gradcheck = lambda *a, **k: True\n"
        + ignores
    )
    checks = case("gradcheck", compare_output=False)
    assert grade(ignores.replace("return 2 * x  ", "return 2 * grad * x  "), SQUARE, checks)[0]
    original = pristine.gradcheck
    _score, results, _status, _message = grade(forged, SQUARE, checks)
    pristine.gradcheck = original
    assert "with a random upstream gradient" in only_message(results)


def test_gradcheck_accepts_an_autograd_function_as_the_entry_point() -> None:
    function_only = SQUARE_DETACHED_GRAD.replace("grad * x  ", "2 * grad * x").split("def f(x)")[0]
    reference = "def Half(x):\n    return x * x\n"
    score, _results, status, _message = grade(
        function_only, reference, case("gradcheck", "gradients"), entry_point="Half"
    )
    assert (score, status) == (1.0, Status.OK)


@pytest.mark.parametrize(
    "source",
    [
        "import torch\ndef f(x, w):\n"
        "    return torch.func.vmap(lambda r: (r * w).sum())(x).detach()\n",
        "import torch\nclass Mul(torch.autograd.Function):\n    @staticmethod\n"
        "    def forward(ctx, x, w):\n        return (x * w).sum()\n    @staticmethod\n"
        "    def backward(ctx, g):\n        return None, None\n"
        "def f(x, w):\n    return Mul.apply(x, w).detach()\n",
        "def f(x, w):\n    return (x * w).sum().data\n",
    ],
    ids=["vmap then detach", "autograd.Function then detach", ".data"],
)
def test_no_graph_sees_history_however_it_was_dropped(source: str) -> None:
    under_no_grad = (
        "import torch\ndef f(x, w):\n    with torch.no_grad():\n        return (x * w).sum()\n"
    )
    checks = case("no_graph", args=[{"random": [3]}, {"random": [3], "requires_grad": True}])
    score, results, _status, _message = grade(source, under_no_grad, checks)
    assert score == 0.0, results
    assert "recorded autograd history" in only_message(results)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(x):\n    return 3 * x\n", "the gradient of x differs"),
        ("def f(x):\n    return x.detach() * x.detach()\n", "x received no gradient"),
    ],
    ids=["wrong gradient", "no gradient"],
)
def test_gradients_report_what_backward_gave_not_the_callers_preset_grad(
    source: str, expected: str
) -> None:
    """The inputs hold a preset .grad when the call starts; the student is told the gradient
    itself (3, against 2 * x = 2), never the sums with that preset."""
    checks = case(
        "gradients", args=[{"tensor": [1.0, 1.0], "requires_grad": True}], compare_output=False
    )
    _score, results, _status, _message = grade(source, SQUARE, checks)
    message = only_message(results)
    assert expected in message
    assert not any(preset_sum in message for preset_sum in ("0.25", "2.25", "3.25"))
    if "differs" in message:
        assert "(got 3, expected 2)" in message


RUNS_BACKWARD = (
    "def f(x, w):\n    out = (x * w{scale}).sum()\n    out.backward(){again}\n"
    "    return out.detach()\n"
)


@pytest.mark.parametrize(
    ("scale", "again", "passes"),
    [
        (" * (1 + 1e-7)", "", True),  # within the tolerance: not bit for bit the reference's
        ("", "\n    (x * w).sum().backward()", False),  # backward twice
        (" * 0", "", False),  # a wrong gradient left in .grad
    ],
    ids=["within tolerance", "twice", "wrong"],
)
def test_a_function_whose_job_is_to_run_backward_is_judged_by_the_grad_it_leaves(
    scale: str, again: str, passes: bool
) -> None:
    reference = RUNS_BACKWARD.format(scale="", again="")
    checks = case("purity", "gradients", args=GRAD_ARGS)
    score, results, _status, _message = grade(
        RUNS_BACKWARD.format(scale=scale, again=again), reference, checks
    )
    assert (score == 1.0) is passes, results
    if not passes:
        assert "the gradient the call left in .grad of x" in only_message(results)


# The gradient of (x * w).sum() into each .grad, by torch.autograd.grad and then {add}.
GRADS_ADDED_BY_HAND = (
    "import torch\ndef f(x, w):\n    out = (x * w).sum()\n"
    "    gx, gw = torch.autograd.grad(out, (x, w))\n    for t, g in ((x, gx), (w, gw)):\n"
    "        if t.grad is None:\n            t.grad = g\n        else:\n            {add}\n"
    "    return out.detach()\n"
)


@pytest.mark.parametrize(
    ("add", "passes"),
    [("t.grad += g", True), ("t.grad = t.grad + g", False)],
    ids=["in place", "rebound"],
)
def test_grad_accumulates_and_purity_hold_the_grad_tensor_to_the_references(
    add: str, passes: bool
) -> None:
    reference = RUNS_BACKWARD.format(scale="", again="")
    for checks in (case("grad_accumulates", args=GRAD_ARGS), case("purity", args=GRAD_ARGS)):
        score, results, _status, _message = grade(
            GRADS_ADDED_BY_HAND.format(add=add), reference, checks
        )
        assert (score == 1.0) is passes, results
        if not passes:
            assert only_message(results) == f"case 1: {REPLACED_GRAD}"


def test_an_output_of_another_shape_is_not_said_to_edit_the_upstream_gradient() -> None:
    total = "def f(x):\n    return (x * x).sum()\n"
    one_element = "def f(x):\n    return (x * x).sum().reshape(1)\n"
    _score, results, _status, _message = grade(one_element, total, case("gradients"))
    message = only_message(results)
    assert "shape" in message
    assert "incoming gradient" not in message


ONE_PASS = "def f(x):\n    return x.sum()\n"


@pytest.mark.parametrize(
    "source",
    [
        ONE_PASS,
        "def f(x):\n    return sum(chunk.sum() for chunk in x.chunk(3))\n",
        "import torch\ndef f(x):\n"
        "    return x.new_zeros(()) + torch.zeros_like(x).sum() + x.sum()\n",
    ],
    ids=["one pass", "views read nothing", "shape-only operations read nothing"],
)
def test_input_reads_passes_an_answer_that_reads_its_input_once(source: str) -> None:
    assert grade(source, ONE_PASS, case("input_reads", args=[{"random": [6, 4]}]))[0] == 1.0


SECOND_PASS = (
    "import torch\ndef f(x):\n    total = x.sum()\n"
    "    with torch.no_grad():\n        again = sum(chunk.sum() for chunk in x.chunk(3))\n"
    "    return total + 0 * again\n"
)


def test_input_reads_fails_a_second_pass_over_the_input_and_says_by_how_much() -> None:
    checks = case("input_reads", args=[{"random": [6, 4]}])
    score, results, _status, _message = grade(SECOND_PASS, ONE_PASS, checks)
    assert score == 0.0
    assert only_message(results) == (
        "case 1: the call read its inputs 2.00× as often as the reference does (limit 1×): "
        "compute each value once, without another pass over the inputs"
    )
    roomy = case({"kind": "input_reads", "max_ratio": 2}, args=[{"random": [6, 4]}])
    assert grade(SECOND_PASS, ONE_PASS, roomy)[0] == 1.0


def test_input_reads_counts_a_second_pass_through_tolist() -> None:
    # tolist() copies the elements out without an operator; a pass over the copies is counted.
    through_lists = (
        "import torch\ndef f(x):\n    total = x.sum()\n"
        "    again = sum(sum(row) for chunk in x.chunk(3) for row in chunk.tolist())\n"
        "    return total + 0 * again\n"
    )
    _score, results, _status, _message = grade(
        through_lists, ONE_PASS, case("input_reads", args=[{"random": [6, 4]}])
    )
    assert "read its inputs 2.00× as often as the reference does" in only_message(results)


def test_input_reads_counts_the_answers_own_backward() -> None:
    # The backward of x * w reads x again for w's gradient: twice x and once w, against once each.
    under_no_grad = (
        "import torch\ndef f(w, x):\n    with torch.no_grad():\n        return (x * w).sum()\n"
    )
    backpropagates = (
        "def f(w, x):\n    out = (x * w).sum()\n    out.backward()\n    return out.detach()\n"
    )
    checks = case("input_reads", args=[{"random": [5], "requires_grad": True}, {"random": [5]}])
    _score, results, _status, _message = grade(backpropagates, under_no_grad, checks)
    assert "read its inputs 1.50× as often as the reference does" in only_message(results)


def test_input_reads_hidden_says_only_that_the_inputs_were_read_too_often() -> None:
    checks = case("input_reads", args=[{"random": [6, 4]}], hidden=True)
    _score, results, _status, _message = grade(SECOND_PASS, ONE_PASS, checks)
    assert (
        only_message(results)
        == "hidden case failed: the code reads its inputs more often than allowed"
    )


def test_input_reads_of_a_reference_that_reads_nothing_is_a_bank_problem() -> None:
    constant = "def f(x):\n    return 1.0\n"
    _score, _results, status, message = grade(constant, constant, case("input_reads"))
    assert status == Status.INTERNAL
    assert "the reference read none of its inputs" in message


SALIENCY = (
    "import torch\ndef f(x):\n    loss = torch.tanh(x).pow(2).sum()\n"
    "    (g,) = torch.autograd.grad(loss, x, create_graph={create})\n"
    "    return loss.detach() + 0 * g.sum().detach()\n"
)


def test_graph_nodes_passes_a_gradient_taken_without_a_graph_of_its_own() -> None:
    plain = SALIENCY.format(create=False)
    assert grade(plain, plain, case("graph_nodes"))[0] == 1.0


def test_graph_nodes_fails_a_gradient_taken_with_create_graph_then_detached() -> None:
    plain, doubled = SALIENCY.format(create=False), SALIENCY.format(create=True)
    score, results, _status, _message = grade(doubled, plain, case("graph_nodes"))
    assert score == 0.0
    message = only_message(results)
    assert message.startswith("case 1: the call built ")
    assert "autograd nodes where the reference builds" in message
    assert "create_graph=True" in message


def test_graph_nodes_gives_room_with_max_ratio() -> None:
    plain, doubled = SALIENCY.format(create=False), SALIENCY.format(create=True)
    roomy = case({"kind": "graph_nodes", "max_ratio": 10})
    assert grade(doubled, plain, roomy)[0] == 1.0


def test_graph_nodes_hidden_says_only_that_the_graph_is_wrong() -> None:
    plain, doubled = SALIENCY.format(create=False), SALIENCY.format(create=True)
    _score, results, _status, _message = grade(doubled, plain, case("graph_nodes", hidden=True))
    assert only_message(results) == (
        "hidden case failed: the autograd graph is not what the question asks for"
    )


FRESH = "def f(x, p):\n    return x * (1 - p)\n"


@pytest.mark.parametrize(
    "returns", ["x", "x.view(-1).view(x.shape)", "x.detach()", "x[:]"], ids=str
)
def test_fresh_output_fails_an_output_that_shares_the_inputs_memory(returns: str) -> None:
    shortcut = f"def f(x, p):\n    if p == 0:\n        return {returns}\n    return x * (1 - p)\n"
    checks = case("fresh_output", args=[{"random": [3, 4]}, 0.0])
    score, results, _status, _message = grade(shortcut, FRESH, checks)
    assert score == 0.0
    assert only_message(results) == (
        "case 1: the output shares memory with the input x (it is the input itself, a view of "
        "it or its detach()): return a new tensor, so that editing the result in place leaves "
        "x unchanged"
    )


@pytest.mark.parametrize(
    "source", [FRESH, "def f(x, p):\n    return [x.clone(), p]\n"], ids=["product", "clone"]
)
def test_fresh_output_passes_a_new_tensor(source: str) -> None:
    reference = "def f(x, p):\n    return [x * (1 - p), p]\n" if "clone" in source else FRESH
    assert grade(source, reference, case("fresh_output", args=[{"random": [3]}, 0.0]))[0] == 1.0


def test_fresh_output_hidden_says_only_that_the_output_shares_memory() -> None:
    checks = case("fresh_output", args=[{"random": [3]}, 0.0], hidden=True)
    _score, results, _status, _message = grade("def f(x, p):\n    return x\n", FRESH, checks)
    assert only_message(results) == (
        "hidden case failed: the output shares memory with an input or with an earlier call's "
        "output"
    )


def test_fresh_output_fails_a_buffer_kept_and_refilled_between_calls() -> None:
    # Each call overwrote the result the caller got from the call before; the values of any
    # one call were right, so nothing else told.
    refilled = (
        "import torch\n_buffer = torch.empty(0)\n"
        "def f(x, p):\n"
        "    global _buffer\n"
        "    if _buffer.shape != x.shape:\n"
        "        _buffer = torch.empty_like(x)\n"
        "    return torch.mul(x, 1 - p, out=_buffer)\n"
    )
    checks = case("fresh_output", args=[{"random": [3, 4]}, 0.0])
    score, results, _status, _message = grade(refilled, FRESH, checks)
    assert score == 0.0
    assert only_message(results) == (
        "case 1: a second call returned memory the first call's output lives in (a buffer kept "
        "and refilled between calls): return a new tensor each call, so that calling again "
        "leaves a result the caller holds unchanged"
    )


def test_fresh_output_of_a_reference_that_returns_its_input_is_a_bank_problem() -> None:
    same = "def f(x, p):\n    return x\n"
    checks = case("fresh_output", args=[{"random": [3]}, 0.0])
    _score, _results, status, message = grade(same, same, checks)
    assert status == Status.INTERNAL
    assert "the reference's output shares an input's memory" in message


def test_each_difference_in_a_message_carries_its_own_values() -> None:
    off_by_half = "def f(x):\n    return x * x + 0.5 * x\n"
    two = case("gradients", args=[{"tensor": [2.0], "requires_grad": True}])
    _score, results, _status, _message = grade(off_by_half, SQUARE, two)
    output, gradient = only_message(results).split("; ")
    assert output.startswith("case 1: the output differs")
    assert output.endswith("(got 5, expected 4)")
    assert gradient.startswith("the gradient of x differs")
    assert gradient.endswith("(got 4.5, expected 4)")


def test_a_difference_two_checks_find_is_said_once() -> None:
    reference = RUNS_BACKWARD.format(scale="", again="")
    wrong = RUNS_BACKWARD.format(scale=" * 0", again="")
    _score, results, _status, _message = grade(
        wrong, reference, case("purity", "gradients", args=GRAD_ARGS)
    )
    message = only_message(results)
    assert message.count("the gradient the call left in .grad of x") == 1


STRAIGHT_THROUGH_ROUND = "import torch\ndef f(x):\n    return x + (torch.round(x) - x).detach()\n"
ROUNDS_IN_DOUBLE = (
    "import torch\ndef f(x):\n    return x + (torch.round(x.double()) - x).detach()\n"
)


@pytest.mark.parametrize("compare_output", [True, False])
def test_an_output_of_another_dtype_is_not_said_to_edit_the_upstream_gradient(
    compare_output: bool,
) -> None:
    checks = case("gradients", compare_output=compare_output)
    _score, results, _status, _message = grade(ROUNDS_IN_DOUBLE, STRAIGHT_THROUGH_ROUND, checks)
    assert only_message(results) == "case 1: the output has dtype float64, expected float32"


def test_an_output_left_attached_is_said_to_lead_a_gradient_back() -> None:
    """The reference runs backward itself and returns its loss detached; one returned still
    attached sends the check's backward into x: not 'a tensor where None was expected'."""
    reference = RUNS_BACKWARD.format(scale="", again="")
    attached = RUNS_BACKWARD.format(scale="", again="").replace(
        "out.backward()\n    return out.detach()", "out.backward(retain_graph=True)\n    return out"
    )
    _score, results, _status, _message = grade(
        attached, reference, case("gradients", args=GRAD_ARGS)
    )
    message = only_message(results)
    assert message.startswith("case 1: backward through the returned output reached x, where")
    assert "expected None" not in message

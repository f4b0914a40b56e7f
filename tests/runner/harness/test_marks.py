"""The marks the call leaves on its inputs and the later backward purity runs through each
input after it (runner.harness.marks)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

from runner.harness.context import ChildContext
from runner.harness.encode import Encoder
from runner.harness.guard import Guard
from runner.harness.marks import input_marks, later_backward


def _context() -> ChildContext:
    return ChildContext(lambda: None, "cpu", Guard([]), Encoder(), "<test>")


def _marked_after(call: Any, inputs: list[Any]) -> list[dict[str, Any]]:
    with input_marks((inputs, {})) as marked:
        call(*inputs)
    later_backward(_context(), marked, seed=3)
    assert marked.marks is not None
    return marked.marks


def test_the_later_backward_leaves_the_grad_it_found_and_the_version_as_they_were() -> None:
    x = torch.randn(3, requires_grad=True)
    grad = x.grad = torch.full((3,), 0.25)
    version = x._version
    (mark,) = _marked_after(lambda x: None, [x])
    assert (mark["reaches"], mark["backward_error"]) == (True, None)
    assert x.grad is grad
    assert torch.equal(grad, torch.full((3,), 0.25))
    assert x._version == version


def test_the_later_backward_sees_a_hook_left_on_the_gradient_accumulator() -> None:
    x = torch.randn(3, requires_grad=True)
    kept = []

    def spoil(x: torch.Tensor) -> None:
        product = x * 1
        assert product.grad_fn is not None
        node = product.grad_fn.next_functions[0][0]
        assert node is not None
        node.register_prehook(lambda grads: (grads[0] * 0,))
        kept.append(node)

    (mark,) = _marked_after(spoil, [x])
    assert (mark["reaches"], mark["backward_error"]) == (False, None)
    assert x.grad is None


def test_inputs_no_backward_can_reach_are_skipped() -> None:
    leaf = torch.randn(3, requires_grad=True)
    inputs = [torch.arange(3), torch.randn(3), leaf * 2]
    marks = _marked_after(lambda *_: None, inputs)
    assert [(m["reaches"], m["backward_error"]) for m in marks] == [(True, None)] * 3
    assert leaf.grad is None


@pytest.mark.parametrize(
    ("call", "kept"),
    [
        (lambda x: x.grad.add_(1), True),
        (lambda x: (x * 2).sum().backward(), True),
        (lambda x: setattr(x, "grad", x.grad + 1), False),
        (lambda x: setattr(x, "grad", x.grad.clone()), False),
        (lambda x: setattr(x, "grad", None), False),
    ],
    ids=["added in place", "backward", "rebound to a sum", "rebound to a copy", "reset"],
)
def test_whether_the_call_kept_the_grad_tensor_the_input_had(
    call: Callable[[torch.Tensor], Any], kept: bool
) -> None:
    x = torch.randn(3, requires_grad=True)
    x.grad = torch.zeros(3)
    (mark,) = _marked_after(call, [x])
    assert mark["grad_kept"] is kept


def test_an_input_without_a_grad_before_the_call_has_none_to_keep() -> None:
    x = torch.randn(3, requires_grad=True)
    (mark,) = _marked_after(lambda x: (x * 2).sum().backward(), [x])
    assert mark["grad_kept"] is None
    assert x.grad is not None


@pytest.mark.parametrize(
    ("call", "moved"),
    [
        (lambda x: setattr(x, "data", x.data.clone()), True),
        (
            lambda x: setattr(
                x, "data", x.data.permute(0, 3, 1, 2).contiguous().permute(0, 2, 3, 1)
            ),
            True,
        ),
        (lambda x: setattr(x, "data", x.data), False),
        (lambda x: x.data.mul_(1), False),
        (lambda x: x.detach().clone().mul_(2), False),
    ],
    ids=["copy", "copy in other strides", "same data", "in place", "a copy"],
)
def test_whether_the_call_moved_the_input_to_another_storage_or_layout(
    call: Callable[[torch.Tensor], Any], moved: bool
) -> None:
    buffer = torch.randn(2, 2, 3, 4, 5)
    x = buffer[1]  # a view, as of a loader's buffer
    (mark,) = _marked_after(call, [x])
    assert mark["moved"] is moved
    assert torch.equal(x, buffer[1])
    assert (x.data_ptr() == buffer[1].data_ptr()) is not moved


def test_a_storage_freed_and_refilled_at_the_same_address_still_moved() -> None:
    def refill(x: torch.Tensor) -> None:
        values = x.tolist()
        x.data = torch.empty(0)  # frees x's storage, unless the harness holds it
        x.data = torch.tensor(values)  # which the allocator would give back here

    (mark,) = _marked_after(refill, [torch.randn(64, 64)])
    assert mark["moved"] is True

"""The run-time guard catches forbidden operations however they are named, in-process.

In the sandbox the static check refuses most of these sources before they run;
here they run, so the guard itself is what is tested.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import pytest
from torch.overrides import TorchFunctionMode

from runner.api import Status
from runner.harness import pristine
from runner.harness.guard import (
    leftover_state,
    mode_stacks,
    names_operator,
    operator_names,
    same_modes,
)
from runner.harness.static import find_forbidden
from tests.runner.harness.helpers import grade

SOFTMAX = ["torch.softmax", "torch.nn.functional.softmax", "torch.Tensor.softmax"]
REFERENCE = (
    "import torch\ndef f(x):\n    e = torch.exp(x - x.max(dim=1, keepdim=True).values)\n"
    "    return e / e.sum(dim=1, keepdim=True)\n"
)
CASES = [{"args": [{"random": [3, 4]}]}]


@pytest.mark.parametrize(
    "body",
    [
        "return torch._softmax(x, 1, False)",
        "return torch.ops.aten._softmax.default(x, 1, False)",
        "return torch.ops.aten.softmax.int(x, 1)",
        "with torch._C.DisableTorchFunction():\n        return torch.nn.functional.softmax(x, 1)",
        "return torch.__dict__['soft' + 'max'](x, 1)",
        "return x.softmax(1)",
        "return torch.special.softmax(x, 1)",
    ],
)
def test_an_alias_of_a_forbidden_function_is_refused_at_run_time(body: str) -> None:
    source = f"import torch\ndef f(x):\n    {body}\n"
    score, _results, status, message = grade(source, REFERENCE, CASES, forbidden=SOFTMAX)
    assert (score, status) == (0.0, Status.FORBIDDEN), message


def test_an_exception_message_is_read_while_the_guard_still_watches() -> None:
    """The answer's exception's __str__ is the answer's code: a forbidden operation in it
    counts, though the call has already failed."""
    source = (
        "import torch\nclass Loud(Exception):\n    def __str__(self):\n"
        "        torch.__dict__['soft' + 'max'](torch.ones(2), 0)\n        return 'loud'\n"
        "def f(x):\n    raise Loud()\n"
    )
    score, _results, status, message = grade(source, REFERENCE, CASES, forbidden=SOFTMAX)
    assert (score, status) == (0.0, Status.FORBIDDEN), message


TANH_BY_LSTM = (
    "import torch\ndef f(x):\n    m = torch.nn.LSTM(1, 1)\n    with torch.no_grad():\n"
    "        m.weight_ih_l0.copy_(torch.tensor([[0.0], [0.0], [1.0], [0.0]]))\n"
    "        m.weight_hh_l0.fill_(0.0)\n"
    "        m.bias_ih_l0.copy_(torch.tensor([100.0, 0.0, 0.0, 0.0]))\n"
    "        m.bias_hh_l0.fill_(0.0)\n"
    "    out, (h, c) = m(x.reshape(1, -1, 1))\n    return 2 * c.reshape(x.shape)\n"
)
SOFTMAX_BY_ATTENTION = (
    "import torch\nimport torch.nn.functional as F\ndef f(x):\n    d = x.shape[-1]\n"
    "    e = torch.eye(d, dtype=x.dtype).reshape(1, 1, d, d)\n"
    "    q = x.reshape(1, 1, -1, d)\n"
    "    return F.scaled_dot_product_attention(q, e, e, scale=1.0).reshape(x.shape)\n"
)


@pytest.mark.parametrize(
    ("source", "reference", "forbidden"),
    [
        (TANH_BY_LSTM, "import torch\ndef f(x):\n    return 2 * torch.tanh(x)\n", ["torch.tanh"]),
        (SOFTMAX_BY_ATTENTION, REFERENCE, SOFTMAX),
    ],
    ids=["tanh inside an LSTM cell", "softmax inside attention"],
)
def test_an_operation_that_contains_the_forbidden_one_is_refused(
    source: str, reference: str, forbidden: list[str]
) -> None:
    # Their fused kernels compute it out of sight of the operator watch.
    assert find_forbidden(source, forbidden)
    _score, _results, status, message = grade(source, reference, CASES, forbidden=forbidden)
    assert status == Status.FORBIDDEN, message


def test_an_in_place_variant_counts_as_the_forbidden_function() -> None:
    source = "import torch\ndef f(x):\n    return x.clone().sigmoid_()\n"
    reference = "import torch\ndef f(x):\n    return 1 / (1 + torch.exp(-x))\n"
    _score, _results, status, _message = grade(
        source, reference, CASES, forbidden=["torch.sigmoid", "torch.Tensor.sigmoid"]
    )
    assert status == Status.FORBIDDEN


def test_the_answer_that_avoids_the_function_passes() -> None:
    assert grade(REFERENCE, REFERENCE, CASES, forbidden=SOFTMAX)[:3:2] == (1.0, Status.OK)


def test_operator_names_cover_namespaced_functions() -> None:
    assert operator_names("torch.linalg.inv") == {"inv", "linalg_inv"}
    assert operator_names("torch.nn.Sigmoid") == {"sigmoid"}
    assert operator_names("torch.special.expit") == {"expit", "special_expit"}


# The answer's suspended generator outlives the call here (in the sandbox it dies with the child).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_mode_left_active_by_the_answer_is_removed_and_reported() -> None:
    source = (
        "import torch\nfrom torch.overrides import TorchFunctionMode\n"
        "class Spy(TorchFunctionMode):\n"
        "    def __torch_function__(self, func, types, args=(), kwargs=None):\n"
        "        return func(*args, **(kwargs or {}))\n"
        "def _stay():\n    with Spy():\n        yield\n"
        "_kept = []\n"
        "def f(x):\n    g = _stay()\n    next(g)\n    _kept.append(g)\n    return x * 2\n"
    )
    reference = "def f(x):\n    return x * 2\n"
    score, results, _status, _message = grade(source, reference, CASES)
    assert score == 0.0
    assert "a torch function mode was left active" in results[0].message
    assert leftover_state() is None
    gc.collect()  # the answer's generator dies here, not in a later test


def test_gradient_recording_left_off_is_restored_and_reported() -> None:
    source = "import torch\ndef f(x):\n    torch.set_grad_enabled(False)\n    return x * 2\n"
    reference = "def f(x):\n    return x * 2\n"
    score, results, _status, _message = grade(source, reference, CASES)
    assert score == 0.0
    assert "gradient recording was left switched off" in results[0].message
    assert leftover_state() is None


@pytest.mark.parametrize(
    ("line", "setting"),
    [
        ("torch.autograd.set_detect_anomaly(True)", "anomaly detection"),
        ("torch.autograd.set_detect_anomaly(False, check_nan=False)", "anomaly detection"),
        ("torch.use_deterministic_algorithms(True, warn_only=True)", "deterministic algorithms"),
        ("torch.set_float32_matmul_precision('medium')", "float32 matmul precision"),
        ("torch.autograd.set_multithreading_enabled(False)", "autograd multithreading"),
        ("torch.set_warn_always(True)", "warn always"),
        ("torch.backends.cuda.enable_flash_sdp(False)", "scaled dot-product attention backend"),
    ],
)
def test_a_process_wide_switch_left_flipped_is_restored_and_reported(
    line: str, setting: str
) -> None:
    source = f"import torch\ndef f(x):\n    {line}\n    return x * 2\n"
    reference = "def f(x):\n    return x * 2\n"
    score, results, _status, _message = grade(source, reference, CASES)
    assert score == 0.0
    assert f"the {setting} setting was left changed" in results[0].message
    assert leftover_state() is None


def test_a_switch_flipped_only_inside_a_with_block_passes() -> None:
    source = (
        "import torch\ndef f(x):\n    with torch.autograd.detect_anomaly():\n        return x * 2\n"
    )
    reference = "def f(x):\n    return x * 2\n"
    score, _results, status, _message = grade(source, reference, CASES)
    assert (score, status) == (1.0, Status.OK)


def test_the_mode_check_sees_a_mode_replaced_by_another_of_the_same_depth() -> None:
    with Quiet():
        before = mode_stacks()
        assert same_modes(before)
        pristine.pop_function_mode()
        pristine.push_function_mode(Quiet())
        assert not same_modes(before)


class Quiet(TorchFunctionMode):
    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        return func(*args, **(kwargs or {}))


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_dispatch_mode_left_active_is_removed_and_reported() -> None:
    source = (
        "import torch\nfrom torch.utils._python_dispatch import TorchDispatchMode\n"
        "class Spy(TorchDispatchMode):\n"
        "    def __torch_dispatch__(self, func, types, args=(), kwargs=None):\n"
        "        return func(*args, **(kwargs or {}))\n"
        "def _stay():\n    with Spy():\n        yield\n"
        "_kept = []\n"
        "def f(x):\n    g = _stay()\n    next(g)\n    _kept.append(g)\n    return x * 2\n"
    )
    reference = "def f(x):\n    return x * 2\n"
    score, results, _status, _message = grade(source, reference, CASES)
    assert score == 0.0
    assert "a torch dispatch mode was left active" in results[0].message
    assert leftover_state() is None
    gc.collect()  # the answer's generator dies here, not in a later test


@pytest.mark.parametrize(
    ("name", "packet", "same"),
    [
        ("softmax", "_softmax", True),
        ("sigmoid", "sigmoid_", True),
        ("batch_norm", "native_batch_norm", True),
        ("batch_norm", "_batch_norm_impl_index", True),
        ("linalg_inv", "linalg_inv_ex", True),
        ("log_softmax", "_log_softmax", True),
        ("sum", "cumsum", False),
        ("sigmoid", "logsigmoid", False),
        ("batch_norm", "batch", False),
        ("linear", "bilinear", False),
    ],
)
def test_an_operator_is_named_by_a_run_of_words(name: str, packet: str, same: bool) -> None:
    assert names_operator(name, packet) is same


def test_a_public_alias_that_decomposes_to_the_forbidden_operator_is_refused() -> None:
    source = (
        "import torch\ndef f(x):\n"
        "    return torch.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False)\n"
    )
    reference = (
        "import torch\ndef f(x):\n"
        "    return (x - x.mean(0)) / torch.sqrt(x.var(0, unbiased=False) + 1e-5)\n"
    )
    _score, _results, status, message = grade(
        source, reference, CASES, forbidden=["torch.nn.functional.batch_norm"]
    )
    assert status == Status.FORBIDDEN, message


COMPLEX_REFERENCE = "import torch\ndef f(x):\n    return 2 * x\n"


@pytest.mark.parametrize(
    "body",
    [
        "i = torch.tensor((-1) ** 0.5)\n    return ((x + 1e-30 * i) ** 2).imag / 1e-30",
        "i = torch.linalg.eigvals(torch.tensor([[0.0, -1.0], [1.0, 0.0]]))[0]\n"
        "    return ((x + 1e-30 * i) ** 2).imag / 1e-30",
    ],
)
def test_a_complex_tensor_made_without_naming_complex_is_refused(body: str) -> None:
    """A complex-step derivative needs a complex number; where builtins.complex is
    forbidden, one reached by arithmetic or an eigenvalue is refused at run time too."""
    source = f"import torch\ndef f(x):\n    {body}\n"
    score, _results, status, message = grade(
        source, COMPLEX_REFERENCE, CASES, forbidden=["builtins.complex"]
    )
    assert (score, status) == (0.0, Status.FORBIDDEN), message
    assert "builtins.complex" in message


def test_a_complex_tensor_is_fine_where_complex_numbers_are_not_forbidden() -> None:
    source = (
        "import torch\ndef f(x):\n    i = torch.tensor((-1) ** 0.5)\n"
        "    return ((x + 1e-30 * i) ** 2).imag / 1e-30\n"
    )
    score, _results, status, message = grade(
        source, COMPLEX_REFERENCE, CASES, forbidden=["torch.softmax"]
    )
    assert (score, status) == (1.0, Status.OK), message


GRADCHECK_HOOK = (
    "import torch\ndef f(x):\n    seen = []\n"
    "    xd = x.detach().double().requires_grad_(True)\n    xd.register_hook(seen.append)\n"
    "    torch.autograd.gradcheck(lambda t: torch.logsumexp(t, dim=1), (xd,),\n"
    "        raise_exception=False, fast_mode=False, check_undefined_grad=False,\n"
    "        check_batched_grad=False)\n"
    "    return sum(seen[: x.shape[0]]).to(x.dtype)\n"
)


def test_a_backward_pass_run_inside_the_answer_counts_as_the_forbidden_function() -> None:
    """Softmax is logsumexp's gradient: gradcheck, which no static rule names, runs the
    backward and a hook on its input reads the rows (it scored 1.0 on softmax-rows)."""
    score, _results, status, message = grade(GRADCHECK_HOOK, REFERENCE, CASES, forbidden=SOFTMAX)
    assert (score, status) == (0.0, Status.FORBIDDEN), message
    assert "torch.softmax" in message


def test_a_backward_pass_inside_the_answer_is_fine_where_no_derivative_is_forbidden() -> None:
    score, _results, status, message = grade(GRADCHECK_HOOK, REFERENCE, CASES, forbidden=[])
    assert (score, status) == (1.0, Status.OK), message

"""The retain_graph check: a graph kept (or freed) behind the output, judged in the supervisor."""

from __future__ import annotations

from typing import Any

import pytest

from runner.api import Status
from runner.harness.child_checks import SECOND_BACKWARD
from runner.harness.payload import PayloadError
from runner.harness.results import decode_result
from runner.harness.spec import parse_cases
from runner.harness.spec_values import CaseError
from tests.runner.harness.helpers import grade, make_job, only_message, payload

X = {"random": [3, 4], "requires_grad": True}

# Both compute the input gradient internally and return the tanh output.
KEEPS = """
import torch
def f(x):
    y = torch.tanh(x)
    (g,) = torch.autograd.grad(y.sum(), x, retain_graph=True)
    return y
"""
FREES = KEEPS.replace(", retain_graph=True", "")
KEEPS_BY_BACKWARD = KEEPS.replace(
    "(g,) = torch.autograd.grad(y.sum(), x, retain_graph=True)",
    "y.sum().backward(retain_graph=True)",
)
NO_GRAPH = "import torch\ndef f(x):\n    return torch.tanh(x).detach()\n"
BROKEN_BACKWARD = """
import torch
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.tanh()
    @staticmethod
    def backward(ctx, grad):
        raise ValueError("no backward here")
def f(x):
    return Bad.apply(x)
"""
# Same values as tanh(x), but the graph behind them has another derivative.
WRONG_GRADIENT = "import torch\ndef f(x):\n    return torch.tanh(x.detach()) * x / x.detach()\n"


def kept(expected: bool, **fields: Any) -> list[dict[str, Any]]:
    check = {"kind": "retain_graph", "expected": expected}
    return [{"args": fields.pop("args", [X]), "checks": [check, *fields.pop("more", [])], **fields}]


def test_it_passes_an_answer_that_keeps_the_graph_when_expected() -> None:
    assert grade(KEEPS, KEEPS, kept(True))[:3:2] == (1.0, Status.OK)


def test_it_reports_a_freed_graph_with_a_hint_when_one_was_expected() -> None:
    score, results, status, _message = grade(FREES, KEEPS, kept(True))
    assert (score, status) == (0.0, Status.OK)
    assert only_message(results) == (
        "case 1: the graph behind the output was freed (call backward/grad with retain_graph=True)"
    )


def test_it_passes_an_answer_that_frees_the_graph_when_expected() -> None:
    assert grade(FREES, FREES, kept(False))[0] == 1.0


def test_it_fails_an_answer_that_keeps_the_graph_when_it_should_be_freed() -> None:
    _score, results, _status, _message = grade(KEEPS, FREES, kept(False))
    assert only_message(results).startswith("case 1: the graph behind the output was kept")
    assert "drop retain_graph=True" in only_message(results)


def test_an_own_backward_into_grad_does_not_change_the_kept_gradients() -> None:
    # autograd.grad is used for the check, so .grad written by the answer plays no part.
    assert grade(KEEPS_BY_BACKWARD, KEEPS, kept(True))[0] == 1.0


def test_a_kept_graph_must_also_give_the_references_gradients() -> None:
    _score, results, _status, _message = grade(WRONG_GRADIENT, KEEPS, kept(True))
    assert only_message(results).startswith(
        "case 1: backward through the kept graph: the gradient of x differs at index"
    )


def test_an_output_without_a_graph_fails_either_expectation() -> None:
    _score, results, _status, _message = grade(NO_GRAPH, KEEPS, kept(True, compare_output=False))
    assert "does not require grad, so there is no graph" in only_message(results)
    _score, results, _status, _message = grade(NO_GRAPH, FREES, kept(False, compare_output=False))
    assert "does not require grad: expected a graph" in only_message(results)


def test_another_backward_error_is_reported_as_an_error_not_as_a_freed_graph() -> None:
    _score, results, _status, _message = grade(BROKEN_BACKWARD, KEEPS, kept(True))
    message = only_message(results)
    assert message.startswith("case 1: backward through the output failed: ValueError: no backward")
    assert SECOND_BACKWARD not in message


def test_it_uses_the_upstream_of_the_cases_gradients_check() -> None:
    upstream = {"kind": "gradients", "upstream": {"random": [3, 4]}}
    cases = kept(True, more=[upstream])
    assert grade(KEEPS, KEEPS, cases)[0] == 1.0
    job = make_job(KEEPS, KEEPS, cases)
    sum_job = make_job(KEEPS, KEEPS, kept(True))
    with_upstream = decode_result(payload(job, "student")).cases[0].values["retained_grads"]
    with_sum = decode_result(payload(sum_job, "student")).cases[0].values["retained_grads"]
    assert not with_upstream[0].tensor.equal(with_sum[0].tensor)


def test_a_reference_that_does_not_do_what_the_check_expects_is_an_internal_error() -> None:
    score, results, status, message = grade(KEEPS, FREES, kept(True))
    assert (score, results, status) == (0.0, [], Status.INTERNAL)
    assert "case 1: retain_graph expects kept, got freed" in message


def test_the_child_records_the_fact_in_the_payload() -> None:
    job = make_job(FREES, FREES, kept(True))
    fact = decode_result(payload(job, "student")).cases[0].retain_graph
    assert fact is not None
    assert fact.outcome == "freed"
    assert SECOND_BACKWARD in fact.message


def test_a_malformed_fact_in_a_payload_is_refused() -> None:
    job = make_job(KEEPS, KEEPS, kept(True))
    data = payload(job, "student").replace(b'"outcome":"kept"', b'"outcome":"okay"')
    with pytest.raises(PayloadError, match="retain_graph record is malformed"):
        decode_result(data)


@pytest.mark.parametrize(
    ("check", "field", "problem"),
    [
        ("retain_graph", "expected", "retain_graph needs expected: true or false"),
        ({"kind": "retain_graph"}, "expected", "retain_graph needs expected"),
        ({"kind": "retain_graph", "expected": "yes"}, "expected", "must be true or false"),
        ({"kind": "retain_graph", "expected": True, "upstream": "sum"}, "upstream", "unknown"),
    ],
)
def test_invalid_options_are_refused_naming_the_field(check: Any, field: str, problem: str) -> None:
    with pytest.raises(CaseError) as caught:
        parse_cases([{"args": [X], "checks": [check]}])
    assert f"cases[0].checks[0].{field}" in str(caught.value)
    assert problem in str(caught.value)

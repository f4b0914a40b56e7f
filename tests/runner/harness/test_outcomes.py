"""Scores, statuses and feedback: tricky outputs, errors, hidden cases, weights, forbidden."""

from __future__ import annotations

import json
from typing import Any

from runner.api import Status
from runner.harness.scoring import visible_and_hidden
from runner.harness.spec import parse_cases
from runner.worker import harness_request
from tests.runner.harness.helpers import grade, make_job, only_message

DOUBLE = "import torch\ndef f(x):\n    return x * 2\n"
ONE_CASE: list[dict[str, Any]] = [{"args": [{"tensor": [1.0, 2.0, 3.0]}]}]


def answer(body: str) -> str:
    return "import torch\n" + body


def test_an_object_whose_eq_always_says_true_is_rejected() -> None:
    source = answer(
        "class Always:\n    def __eq__(self, o):\n        return True\n"
        "def f(x):\n    return Always()\n"
    )
    score, results, status, _message = grade(source, DOUBLE, ONE_CASE)
    assert (score, status) == (0.0, Status.OK)
    assert (
        only_message(results)
        == "case 1: the output is an object of type answer.Always, expected a tensor"
    )


def test_a_tensor_subclass_with_a_lying_torch_function_is_judged_by_its_values() -> None:
    source = answer(
        "class Liar(torch.Tensor):\n"
        "    @classmethod\n"
        "    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
        "        return torch.zeros(3)\n"
        "def f(x):\n    return (x * 3).as_subclass(Liar)\n"
    )
    _score, results, _status, _message = grade(source, DOUBLE, ONE_CASE)
    assert only_message(results).startswith("case 1: the output differs at index (2,) by 3, more")


def test_a_tensor_subclass_with_right_values_passes() -> None:
    source = answer("def f(x):\n    return torch.nn.Parameter(x * 2)\n")
    assert grade(source, DOUBLE, ONE_CASE)[0] == 1.0


def test_sparse_and_meta_tensors_are_rejected_with_a_reason() -> None:
    sparse = answer("def f(x):\n    return (x * 2).to_sparse()\n")
    meta = answer("def f(x):\n    return torch.empty(3, device='meta')\n")
    assert "layout torch.sparse_coo" in only_message(grade(sparse, DOUBLE, ONE_CASE)[1])
    assert "a meta tensor" in only_message(grade(meta, DOUBLE, ONE_CASE)[1])


def test_wrong_dtype_and_nan_outputs_fail() -> None:
    wrong_dtype = answer("def f(x):\n    return (x * 2).double()\n")
    nan = answer("def f(x):\n    return x * float('nan')\n")
    assert only_message(grade(wrong_dtype, DOUBLE, ONE_CASE)[1]).endswith(
        "the output has dtype float64, expected float32"
    )
    assert "the output has nan at index (0,)" in only_message(grade(nan, DOUBLE, ONE_CASE)[1])


def test_an_exception_shows_a_traceback_of_the_answer_only() -> None:
    source = answer("def helper(x):\n    return x.view(2, 2)\n\ndef f(x):\n    return helper(x)\n")
    _score, results, status, _message = grade(source, DOUBLE, ONE_CASE)
    message = only_message(results)
    assert status == Status.OK
    assert "line 6, in f\n    return helper(x)\n  line 3, in helper" in message
    assert "runner/harness" not in message
    assert message.splitlines()[-1].startswith("RuntimeError")


def test_an_answer_that_does_not_load_is_an_error_with_its_traceback() -> None:
    score, results, status, message = grade(answer("raise ValueError('bad')\n"), DOUBLE, ONE_CASE)
    assert (score, status) == (0.0, Status.ERROR)
    assert message.endswith("ValueError: bad")
    assert only_message(results) == "case 1: the answer did not load"


def test_a_missing_entry_point_is_an_error() -> None:
    _score, _results, status, message = grade(answer("def g(x):\n    return x\n"), DOUBLE, ONE_CASE)
    assert status == Status.ERROR
    assert message == "NameError: the answer does not define a function named f"


def test_sys_exit_in_the_answer_is_a_failed_case_not_a_pass() -> None:
    source = answer("import sys\ndef f(x):\n    sys.exit(0)\n")
    score, results, _status, _message = grade(source, DOUBLE, ONE_CASE)
    assert score == 0.0
    assert "SystemExit" in only_message(results)


def test_weights_give_partial_credit_and_hidden_cases_say_little() -> None:
    cases = [
        {"args": [{"tensor": [1.0]}], "weight": 3},
        {"args": [{"tensor": [-1.0]}], "weight": 1, "hidden": True},
    ]
    positive_only = answer("def f(x):\n    return x.abs() * 2\n")
    score, results, _status, message = grade(positive_only, DOUBLE, cases)
    assert score == 0.75
    assert [r.passed for r in results] == [True, False]
    assert results[1].message == "hidden case failed: the output differs from the expected one"
    assert results[1].hidden
    assert results[1].max_abs_error is None
    assert message == "1 of 2 checks passed"


def test_visible_feedback_shows_values_briefly_but_never_the_reference_code() -> None:
    reference = DOUBLE + "# SECRET_REFERENCE_MARKER\n"
    wrong = answer("def f(x):\n    return x * 3\n")
    message = only_message(grade(wrong, reference, ONE_CASE)[1])
    assert "(got 9, expected 6)" in message
    assert "SECRET_REFERENCE_MARKER" not in message


def test_a_per_case_compare_override_loosens_the_tolerance() -> None:
    close = answer("def f(x):\n    return x * 2 + 1e-3\n")
    strict = [{"args": [{"tensor": [1.0]}]}]
    loose = [{"args": [{"tensor": [1.0]}], "compare": {"atol": 1e-2}}]
    assert grade(close, DOUBLE, strict)[0] == 0.0
    assert grade(close, DOUBLE, loose)[0] == 1.0


def test_a_forbidden_call_at_run_time_is_reported_by_name() -> None:
    # getattr with a computed name hides the call from the static look.
    source = answer(
        "def f(x):\n    name = ''.join(['so', 'ftmax'])\n"
        "    return getattr(torch, name)(x, 0) * 0 + x * 2\n"
    )
    score, results, status, message = grade(source, DOUBLE, ONE_CASE, forbidden=["torch.softmax"])
    assert (score, status) == (0.0, Status.FORBIDDEN)
    assert message == "forbidden: torch.softmax (not allowed in this question)"
    assert "torch.softmax is not allowed" in only_message(results)


def test_a_forbidden_python_function_is_refused_even_if_imported_late() -> None:
    source = answer("def f(x):\n    from torch.func import grad\n    return x * 2\n")
    hidden = (
        "def f(x):\n    m = __import__('torch.func', fromlist=['x'])\n"
        "    m.vmap(lambda t: t)(x)\n    return x * 2\n"
    )
    _score, _results, status, message = grade(
        answer(hidden), DOUBLE, ONE_CASE, forbidden=["torch.func"]
    )
    assert status == Status.FORBIDDEN
    assert "torch.func" in message
    assert grade(source, DOUBLE, ONE_CASE, forbidden=["torch.func"])[2] == Status.FORBIDDEN


def test_the_reference_may_use_what_the_answer_may_not() -> None:
    reference = "import torch\ndef f(x):\n    return torch.softmax(x, 0)\n"
    answer_source = answer("def f(x):\n    e = (x - x.max()).exp()\n    return e / e.sum()\n")
    score, _results, status, _message = grade(
        answer_source, reference, ONE_CASE, forbidden=["torch.softmax"]
    )
    assert (score, status) == (1.0, Status.OK)


def test_a_reference_that_raises_is_an_internal_error() -> None:
    broken = "def f(x):\n    raise ValueError('oops')\n"
    _score, _results, status, message = grade(DOUBLE, broken, ONE_CASE)
    assert status == Status.INTERNAL
    assert "case 1: it raised ValueError: oops" in message


def test_an_invalid_case_is_an_internal_error() -> None:
    _score, _results, status, message = grade(DOUBLE, DOUBLE, [{"args": "x"}])
    assert status == Status.INTERNAL
    assert "cases[0].args: must be a list" in message


def test_a_hidden_case_says_which_kind_of_check_failed_and_nothing_else() -> None:
    leaky = answer(
        "def f(x):\n    if x.numel() > 3:\n"
        "        raise ValueError(f'hidden input {x.tolist()}')\n    return x * 2\n"
    )
    cases = [ONE_CASE[0], {"args": [{"tensor": [7.0, 8.0, 9.0, 10.0]}], "hidden": True}]
    _score, results, _status, _message = grade(leaky, DOUBLE, cases)
    assert results[1].message == "hidden case failed: the code raised an error"
    assert "7.0" not in results[1].message


def test_the_visible_cases_run_never_holds_a_hidden_case() -> None:
    hidden = {"args": [{"tensor": [123.25]}], "hidden": True}
    job = make_job(DOUBLE, DOUBLE, [ONE_CASE[0], hidden, {"args": [{"random": [2]}]}])
    visible, _hidden = visible_and_hidden(parse_cases(job.cases))
    request = harness_request(job, role="student", device="cpu", run=visible)
    assert "123.25" not in json.dumps(request)
    assert [(case["name"], case["seed"]) for case in request["cases"]] == [
        ("case 1", 0),
        ("case 3", 2),
    ]

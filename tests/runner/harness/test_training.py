"""Training cases: credit per stage, measured by the harness itself."""

from __future__ import annotations

from typing import Any

import torch

from runner.api import Status
from runner.harness.child_train import build_model, measure_loss, training_data
from runner.harness.judge_training import _decreases, _not_falling_message
from runner.harness.payload import Rejected, TensorValue
from runner.harness.spec import parse_cases
from tests.runner.harness.helpers import grade

GOOD = """
import torch.nn.functional as F
def train_step(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.detach()
"""
STAGES = [
    {"check": "runs", "weight": 1},
    {"check": "loss_decreases", "weight": 2, "tolerance": 0.05},
    {"check": "matches_reference", "weight": 1},
]


def training(**changes: Any) -> list[dict[str, Any]]:
    case = {
        "name": "tiny",
        "kind": "training",
        "seed": 5,
        "model": {"mlp": [4, 8, 1]},
        "data": {"x": {"random": [32, 4]}, "y": {"random": [32, 1]}},
        "optimizer": {"sgd": {"lr": 0.1}},
        "steps": 15,
        "stages": STAGES,
    }
    return [{**case, **changes}]


def run(source: str, **changes: Any) -> tuple[float, list[Any], Status, str]:
    return grade(source, GOOD, training(**changes), entry_point="train_step")


def test_a_correct_step_earns_every_stage() -> None:
    score, results, status, _message = run(GOOD)
    assert (score, status) == (1.0, Status.OK)
    assert [r.name for r in results] == [
        "tiny: runs",
        "tiny: loss_decreases",
        "tiny: matches_reference",
    ]
    assert [r.weight for r in results] == [0.25, 0.5, 0.25]


def test_adam_and_a_linear_model_work_too() -> None:
    score, _results, _status, _message = run(
        GOOD, model={"linear": [4, 1]}, optimizer={"adam": {"lr": 0.05}}
    )
    assert score == 1.0


def test_a_step_run_in_evaluation_mode_is_caught_by_batch_norm_though_it_restores_training() -> (
    None
):
    in_eval = GOOD.replace(
        "    optimizer.zero_grad()\n", "    model.eval()\n    optimizer.zero_grad()\n"
    )
    restored = in_eval.replace("return loss.detach()", "model.train()\n    return loss.detach()")
    normalised = {"mlp": [4, 8, 1], "batch_norm": True}
    assert run(GOOD, model=normalised)[0] == 1.0
    assert run(restored)[0] == 1.0  # without batch norm both modes compute the same
    score, results, _status, _message = run(restored, model=normalised)
    passed = {r.name.split(": ")[1]: r.passed for r in results}
    assert (passed["runs"], passed["matches_reference"]) == (False, False), results
    assert score < 1.0


def test_forgetting_zero_grad_runs_but_does_not_match_the_reference() -> None:
    """Step 1 already applies the stale gradients the harness left on the parameters."""
    no_zero = GOOD.replace("    optimizer.zero_grad()\n", "")
    _score, results, _status, _message = run(no_zero)
    passed = {r.name.split(": ")[1]: r.passed for r in results}
    assert passed["runs"] is True
    assert passed["matches_reference"] is False
    assert results[2].message.startswith("case 1: the loss after step 1 is off by")


def test_a_loss_of_shape_one_is_not_the_loss_as_one_number() -> None:
    shaped = GOOD.replace("return loss.detach()", "return loss.detach().reshape(1)")
    _score, results, _status, _message = run(shaped)
    assert results[0].passed is False
    assert "returned a tensor of shape (1,), not the loss as one number" in results[0].message


def test_a_step_that_never_updates_fails_loss_decreases() -> None:
    no_step = GOOD.replace("    optimizer.step()\n", "")
    score, results, _status, _message = run(no_step)
    assert results[1].message.startswith("case 1: the loss stayed at ")
    assert score == 0.25


def test_returning_something_other_than_a_loss_fails_runs_only() -> None:
    returns_model = GOOD.replace("return loss.detach()", "return model")
    _score, results, _status, _message = run(returns_model)
    assert results[0].message == (
        "case 1: step 1 returned an object of type torch.nn.modules.container.Sequential, "
        "not the loss"
    )
    assert results[1].passed


def test_a_step_that_raises_reports_the_step() -> None:
    raising = GOOD.replace("optimizer.step()", "raise ValueError('no')")
    score, results, _status, _message = run(raising)
    assert score == 0.0
    assert results[0].message.startswith("case 1: step 1 failed: ValueError: no")


def test_a_step_that_leaves_the_model_in_evaluation_mode_fails_runs() -> None:
    """With dropout or batch norm in the model the step would train the wrong network."""
    evaluating = GOOD.replace("optimizer.zero_grad()", "model.eval()\n    optimizer.zero_grad()")
    _score, results, _status, _message = run(evaluating)
    assert not results[0].passed
    assert results[0].message.startswith("case 1: step 1 left the model in evaluation mode")
    restored = evaluating.replace("return loss.detach()", "model.train()\n    return loss.detach()")
    assert run(restored)[0] == 1.0
    one_layer = GOOD.replace("optimizer.zero_grad()", "model[-1].eval()\n    optimizer.zero_grad()")
    assert not run(one_layer)[1][0].passed


def test_a_mode_flag_that_raises_when_read_fails_the_step_not_the_grader() -> None:
    """The answer may give a module a class whose `training` runs its own code."""
    hostile = GOOD.replace(
        "    optimizer.zero_grad()\n",
        "    class Sly(type(model)):\n"
        "        training = property(lambda self: 1 / 0)\n"
        "    model.__class__ = Sly\n"
        "    optimizer.zero_grad()\n",
    )
    score, results, status, _message = run(hostile)
    assert status == Status.OK
    assert not results[0].passed
    assert results[0].message.startswith("case 1: step 1 left the model in evaluation mode")
    assert score < 1.0


def test_faking_the_returned_loss_does_not_fake_a_falling_loss() -> None:
    fake = (
        "import itertools\n_c = itertools.count()\n"
        "def train_step(model, optimizer, x, y):\n    return 1.0 / (1 + next(_c))\n"
    )
    _score, results, _status, _message = run(fake)
    assert not results[0].passed
    assert "but the loss of the model's output on this batch" in results[0].message
    assert not results[1].passed


def test_a_loss_that_still_holds_its_graph_fails_runs() -> None:
    holding = GOOD.replace("return loss.detach()", "return loss")
    _score, results, _status, _message = run(holding)
    assert results[0].message == (
        "case 1: step 1 returned a loss that still holds its graph "
        "(return loss.detach() or loss.item())"
    )
    assert results[1].passed


def test_the_loss_after_the_update_is_not_the_steps_loss() -> None:
    after = GOOD.replace("return loss.detach()", "return F.mse_loss(model(x), y).item()")
    _score, results, _status, _message = run(after)
    assert not results[0].passed
    assert results[0].message.startswith("case 1: step 1 returned ")
    assert ", the loss after that step's update (before it the loss was " in results[0].message
    assert results[0].message.endswith("return the loss computed before optimizer.step()")


def test_a_different_loss_from_before_the_update_is_not_blamed_on_the_update() -> None:
    """Both answers return their loss from before optimizer.step(), but not the case's loss:
    one broadcasts (N,) predictions against (N, 1) targets, the other normalises batch norm
    by its running statistics."""
    squeezed = GOOD.replace("model(x), y", "model(x).squeeze(), y")
    in_eval = GOOD.replace(
        "    optimizer.zero_grad()\n", "    model.eval()\n    optimizer.zero_grad()\n"
    ).replace("return loss.detach()", "model.train()\n    return loss.detach()")
    normalised = {"mlp": [4, 8, 1], "batch_norm": True}
    for source in (squeezed, in_eval):
        results = run(source, model=normalised)[1]
        message = results[0].message
        assert not results[0].passed
        assert "but the loss of the model's output on this batch before the update" in message
        assert message.endswith(
            "check which loss you compute and how it is reduced, the shapes it compares, and "
            "that the model is in training mode during the forward pass"
        )
        assert "optimizer.step()" not in message


def test_losses_a_hair_apart_are_shown_with_the_digits_that_tell_them_apart() -> None:
    """At 4 digits each pair below would read as one number."""
    assert _not_falling_message(0.69314718, 0.69314712, 0.658) == (
        "the loss went from 0.6931472 to 0.6931471; it must fall below 0.658"
    )
    assert _not_falling_message(1.0, 0.95000004, 0.95) == (
        "the loss went from 1 to 0.95000004; it must fall below 0.95"
    )
    assert _not_falling_message(0.5, 0.6, 0.45) == (
        "the loss went from 0.5 to 0.6; it must fall below 0.45"
    )


def test_a_loss_that_did_not_move_is_said_to_have_stayed() -> None:
    spec = parse_cases(training())[0]
    loop = spec.training
    assert loop is not None
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(spec.seed)
        untrained = [p.detach() for p in build_model(loop, "cpu").parameters()]
    params = [TensorValue(p, False, True, "cpu", "Tensor") for p in untrained]
    outcome = _decreases(spec, loop, params, 0.05)
    assert not outcome.ok
    initial = measure_loss(loop, untrained, *training_data(loop, spec.seed, "cpu"))
    assert outcome.message == (
        f"the loss stayed at {initial:.4g}; it must fall below {initial * 0.95:.4g}"
    )


def test_parameters_the_child_could_not_send_fail_the_check_not_the_judge() -> None:
    """A parameter list with a value the payload refused (over its size cap) is a failed
    check: nothing a child sends may make the grading itself fail."""
    spec = parse_cases(training())[0]
    loop = spec.training
    assert loop is not None
    kept = TensorValue(torch.zeros(2), False, True, "cpu", "Tensor")
    for params in ([kept, Rejected("too large")], [], None, "weights"):
        outcome = _decreases(spec, loop, params, 0.05)
        assert not outcome.ok
        assert outcome.message == "the model's parameters could not be read after training"


def test_a_step_that_updates_then_raises_earns_no_falling_loss() -> None:
    """Each call does its update and then fails: training never completes a step."""
    crashing = GOOD.replace("return loss.detach()", "raise RuntimeError('late')")
    score, results, _status, _message = run(crashing)
    assert [r.passed for r in results] == [False, False, False]
    assert results[1].message == (
        "case 1: training did not run all 15 steps, so its loss is not judged"
    )
    assert score == 0.0


def test_an_extra_forward_under_no_grad_moves_the_batch_norm_statistics_twice_a_step() -> None:
    """The losses and the parameters are the reference's (batch norm trains on the batch's
    statistics), but every step updated the running statistics twice."""
    twice = GOOD.replace(
        "    optimizer.zero_grad()\n",
        "    with torch.no_grad():\n        F.mse_loss(model(x), y)\n    optimizer.zero_grad()\n",
    ).replace("import torch.nn.functional as F", "import torch\nimport torch.nn.functional as F")
    normalised = {"mlp": [4, 8, 1], "batch_norm": True}
    _score, results, _status, _message = run(twice, model=normalised)
    assert [r.passed for r in results] == [True, True, False]
    assert results[2].message == (
        "case 1: after the steps, the running statistics of the batch norm after layer 1 "
        "differ from the reference's (num_batches_tracked is 30, expected 15): each step must "
        "run the model forward once, in training mode (a forward under torch.no_grad() updates "
        "them too)"
    )
    assert run(twice)[0] == 1.0  # without batch norm the extra forward changes nothing


def test_running_statistics_off_by_more_than_the_tolerance_fail_with_their_name() -> None:
    """A second update of the statistics hidden by taking one off the count: the count is the
    reference's, the running mean is not."""
    hidden = GOOD.replace(
        "    optimizer.zero_grad()\n",
        "    with torch.no_grad():\n        model[1](model[0](x))\n"
        "        model[1].num_batches_tracked -= 1\n"
        "    optimizer.zero_grad()\n",
    ).replace("import torch.nn.functional as F", "import torch\nimport torch.nn.functional as F")
    normalised = {"mlp": [4, 8, 1], "batch_norm": True}
    results = run(hidden, model=normalised)[1]
    assert results[2].message.startswith(
        "case 1: the running_mean of the batch norm after layer 1 after training differs at "
    ), results[2].message


def test_gradients_left_before_the_first_step_leak_into_an_update_that_zeroes_after_it() -> None:
    """The harness leaves stale gradients on the parameters before step 1, as a caller's
    earlier backward would; clearing them only after optimizer.step() applies them."""
    zero_after = GOOD.replace("    optimizer.zero_grad()\n", "").replace(
        "    optimizer.step()\n", "    optimizer.step()\n    optimizer.zero_grad()\n"
    )
    _score, results, _status, _message = run(zero_after)
    assert [r.passed for r in results[:1]] == [True]
    assert results[2].message.startswith("case 1: the loss after step 1 is off by")
    set_to_none = GOOD.replace("optimizer.zero_grad()", "model.zero_grad(set_to_none=True)")
    assert run(set_to_none)[0] == 1.0


def test_a_step_that_writes_into_the_callers_data_fails_runs_even_keeping_its_values() -> None:
    for data in ("y", "x"):
        writing = GOOD.replace(
            "    optimizer.zero_grad()\n",
            f"    {data}.clamp_(-10.0, 10.0)\n    optimizer.zero_grad()\n",
        )
        _score, results, _status, _message = run(writing)
        assert [r.passed for r in results] == [False, True, True]
        assert results[0].message == (
            f"case 1: the call wrote into the input {data} in place (even if its values are "
            "unchanged, its version counter moved, which breaks a caller's backward through it)"
        )


def test_a_step_that_draws_from_the_global_rng_fails_runs_unless_the_reference_does() -> None:
    shuffling = GOOD.replace(
        "    optimizer.zero_grad()\n",
        "    order = torch.randperm(x.shape[0])\n    x, y = x[order], y[order]\n"
        "    optimizer.zero_grad()\n",
    ).replace("import torch.nn.functional as F", "import torch\nimport torch.nn.functional as F")
    _score, results, _status, _message = run(shuffling)
    assert [r.passed for r in results] == [False, True, True]
    assert results[0].message == (
        "case 1: step 1 reseeded or drew from a global random number generator (torch's or "
        "Python's random module), which the caller shares; draw from a torch.Generator of your "
        "own"
    )
    score, _results, _status, _message = grade(
        shuffling, shuffling, training(), entry_point="train_step"
    )
    assert score == 1.0


def test_a_draw_from_the_global_rng_on_one_later_step_is_caught_at_that_step() -> None:
    """Each step is seeded before it is called, so every step's draws are judged, not only
    the last one's."""
    third = GOOD.replace(
        "def train_step(model, optimizer, x, y):\n",
        "_calls = []\ndef train_step(model, optimizer, x, y):\n"
        "    _calls.append(1)\n    if len(_calls) == 3:\n        torch.rand(1)\n",
    ).replace("import torch.nn.functional as F", "import torch\nimport torch.nn.functional as F")
    results = run(third)[1]
    assert results[0].message.startswith("case 1: step 3 reseeded or drew from a global")


def test_a_step_that_shuffles_with_pythons_random_module_fails_runs() -> None:
    shuffling = "import random\n" + GOOD.replace(
        "    optimizer.zero_grad()\n",
        "    order = list(range(x.shape[0]))\n    random.shuffle(order)\n"
        "    x, y = x[order], y[order]\n    optimizer.zero_grad()\n",
    )
    _score, results, _status, _message = run(shuffling)
    assert [r.passed for r in results] == [False, True, True]
    assert "step 1 reseeded or drew from a global random number generator" in results[0].message


def test_a_step_that_keeps_its_loss_with_the_graph_fails_runs() -> None:
    """Returning the detached loss but keeping the loss itself (its graph retained) in a list
    holds every step's graph alive."""
    hoarding = "_history = []\n" + GOOD.replace(
        "    loss.backward()\n", "    loss.backward(retain_graph=True)\n    _history.append(loss)\n"
    )
    _score, results, _status, _message = run(hoarding)
    assert [r.passed for r in results] == [False, True, True]
    assert results[0].message == (
        "case 1: after the 15 steps, the graphs of 15 of them, from step 1 on, are still alive "
        "(the tensors saved for backward are held): keep no reference to a loss that holds its "
        "graph (keep loss.item() or loss.detach()), so each step's graph is freed by its "
        "backward"
    )
    last = hoarding.replace("_history.append(loss)", "_history[:] = [loss]")
    assert run(last)[1][0].message.startswith(
        "case 1: after the 15 steps, the graph of step 15 is still alive ("
    )
    retaining = GOOD.replace("loss.backward()", "loss.backward(retain_graph=True)")
    assert run(retaining)[0] == 1.0  # the graph goes when the step drops the loss


def test_a_step_that_switches_on_requires_grad_of_the_callers_x_fails_runs() -> None:
    # Keeps x's values and version, but every backward then writes into the caller's x.grad.
    switching = GOOD.replace(
        "    optimizer.zero_grad()\n", "    x.requires_grad_(True)\n    optimizer.zero_grad()\n"
    )
    _score, results, _status, _message = run(switching)
    assert [r.passed for r in results] == [False, True, True]
    assert results[0].message == (
        "case 1: the steps switched requires_grad of the input x from False to True; leave "
        "the caller's tensors as they were"
    )

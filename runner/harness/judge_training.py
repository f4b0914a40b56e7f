"""Supervisor-side verdicts for the stages of a training case.

`loss_decreases` is recomputed here: the initial parameters are rebuilt from
the case's seed and the final ones are those the child sent back, so the
verdict rests on parameters, not on losses the answer's process reported.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from runner.harness.child_train import build_model, measure_loss, training_data
from runner.harness.compare import compare
from runner.harness.judge_checks import _marks_left
from runner.harness.judge_common import ReferenceFailure, reference_value, student_value
from runner.harness.outcome import Outcome, Tolerance, distinguishable
from runner.harness.payload import Rejected, TensorValue
from runner.harness.results import CaseRecord
from runner.harness.spec import Case
from runner.harness.spec_training import Stage, Training

# How closely a step's returned loss must match the loss the harness measured before that step.
RETURNED_LOSS = Tolerance(rtol=1e-4, atol=1e-6)


def judge_training(
    case: Case, student: CaseRecord, reference: CaseRecord, tolerance: Tolerance
) -> list[tuple[Stage, Outcome]]:
    """One outcome per stage; raises ReferenceFailure if the reference did not train."""
    spec = case.training
    assert spec is not None  # noqa: S101  # only called for training cases
    number = case.index + 1
    if reference.error is not None:
        raise ReferenceFailure(f"case {number}: the reference's training step raised")
    reference_losses = reference_value(reference, "losses", number)
    reference_params = reference_value(reference, "params", number)
    reference_buffers = reference_value(reference, "buffers", number)
    reference_draws = reference_value(reference, "rng_draws", number)
    reference_kept = reference_value(reference, "graphs_kept", number)
    if reference.input_marks is None:
        raise ReferenceFailure(f"case {number}: the marks on the reference's data were not read")
    outcomes = []
    for stage in spec.stages:
        if stage.check == "runs":
            outcome = _runs(student, spec.steps)
            outcome = _left_alone(student, reference, reference_draws) if outcome.ok else outcome
            outcome = _graphs_freed(student, reference_kept, spec.steps) if outcome.ok else outcome
        elif stage.check == "loss_decreases":
            outcome = _all_steps_ran(student, spec.steps) or _decreases(
                case, spec, student_value(student, "params"), stage.tolerance
            )
        else:
            outcome = _matches(student, reference_losses, reference_params, tolerance)
            if outcome.ok:
                outcome = _buffers_match(spec, student, reference_buffers, tolerance)
        outcomes.append((stage, outcome.as_kind("training")))
    return outcomes


def _matches(student: CaseRecord, losses: Any, params: Any, tolerance: Tolerance) -> Outcome:
    got = student_value(student, "losses")
    if isinstance(got, list) and isinstance(losses, list) and len(got) == len(losses):
        for step, (mine, theirs) in enumerate(zip(got, losses, strict=True)):
            when = "before the first step" if step == 0 else f"after step {step}"
            outcome = compare(mine, theirs, tolerance, f"the loss {when}")
            if not outcome.ok:
                return outcome
    else:
        return compare(got, losses, tolerance, "the losses")
    got_params = student_value(student, "params")
    if not (isinstance(got_params, list) and isinstance(params, list)):
        return compare(got_params, params, tolerance, "the parameters")
    for index, (mine, theirs) in enumerate(zip(got_params, params, strict=False)):
        outcome = compare(mine, theirs, tolerance, _parameter_name(index))
        if not outcome.ok:
            return outcome
    return Outcome(True)


def _buffers_match(
    spec: Training, student: CaseRecord, expected: Any, tolerance: Tolerance
) -> Outcome:
    """The model's buffers after the steps (a batch norm's running statistics) as the
    reference's: each forward in training mode moves them, even one under torch.no_grad()."""
    got = student_value(student, "buffers")
    names = _buffer_names(spec)
    if not (isinstance(got, list) and isinstance(expected, list) and len(got) == len(names)):
        return compare(got, expected, tolerance, "the model's buffers after training")
    buffers = list(zip(names, got, expected, strict=False))
    for (buffer, owner), mine, theirs in buffers:
        if buffer == "num_batches_tracked" and _count(mine) != _count(theirs):
            return Outcome(
                False,
                f"after the steps, the running statistics of the {owner} differ from the "
                f"reference's (num_batches_tracked is {_count(mine)}, expected "
                f"{_count(theirs)}): each step must run the model forward once, in training "
                "mode (a forward under torch.no_grad() updates them too)",
            )
    for (buffer, owner), mine, theirs in buffers:
        outcome = compare(mine, theirs, tolerance, f"the {buffer} of the {owner} after training")
        if not outcome.ok:
            return outcome
    return Outcome(True)


def _buffer_names(spec: Training) -> list[tuple[str, str]]:
    """(buffer, module) for each buffer of `build_model`'s model, in order: those of the
    batch norm after each hidden layer."""
    if not spec.batch_norm:
        return []
    return [
        (buffer, f"batch norm after layer {layer}")
        for layer in range(1, len(spec.sizes) - 1)
        for buffer in ("running_mean", "running_var", "num_batches_tracked")
    ]


def _count(value: Any) -> int | None:
    if isinstance(value, TensorValue) and value.tensor.numel() == 1:
        return int(value.tensor.reshape(-1)[0])
    return None


def _left_alone(student: CaseRecord, reference: CaseRecord, expected_draws: Any) -> Outcome:
    """The steps wrote into the caller's x and y, and drew from or reseeded the global RNG,
    only where the reference's steps do."""
    marks, expected_marks = student.input_marks, reference.input_marks or []
    if marks is None or len(marks) != len(expected_marks):
        return Outcome(False, "what the steps did to the data could not be read")
    for label, mark, expected in zip(("x", "y"), marks, expected_marks, strict=False):
        outcome = _marks_left(mark, expected, label)
        if not outcome.ok:
            return outcome
    flags = _data_flags_left(student, reference)
    if not flags.ok:
        return flags
    draws = student_value(student, "rng_draws")
    if draws == expected_draws:
        return Outcome(True)
    extra = (
        [step for step in draws if step not in expected_draws] if isinstance(draws, list) else []
    )
    return Outcome(
        False,
        f"{f'step {extra[0]}' if extra else 'a step'} reseeded or drew from a global random "
        "number generator (torch's or Python's random module), which the caller shares; draw "
        "from a torch.Generator of your own",
    )


def _data_flags_left(student: CaseRecord, reference: CaseRecord) -> Outcome:
    """x and y require grad, and hold a .grad, after the steps only where the reference's do
    (a reference record without the flags, made before they were recorded, checks nothing)."""
    expected = reference.values.get("data_flags")
    if expected is None:
        return Outcome(True)
    got = student_value(student, "data_flags")
    if not isinstance(got, list) or len(got) != len(expected):
        return Outcome(False, "what the steps did to the data could not be read")
    for label, flags, expected_flags in zip(("x", "y"), got, expected, strict=True):
        if flags[0] != expected_flags[0]:
            return Outcome(
                False,
                f"the steps switched requires_grad of the input {label} from "
                f"{expected_flags[0]} to {flags[0]}; leave the caller's tensors as they were",
            )
        if flags[1] != expected_flags[1]:
            return Outcome(
                False,
                f"the steps {'left a gradient in' if flags[1] else 'cleared'} the input "
                f"{label}'s .grad; a step updates the model, not the caller's data",
            )
    return Outcome(True)


def _graphs_freed(student: CaseRecord, expected: Any, steps: int) -> Outcome:
    """No step's graph outlives the training beyond the reference's: a loss kept with its
    graph (in a list, say) holds every tensor that step saved for backward."""
    kept = student_value(student, "graphs_kept")
    if not isinstance(kept, list) or not isinstance(expected, list):
        return Outcome(False, "what the steps left alive could not be read")
    if len(kept) <= len(expected):
        return Outcome(True)
    alive = (
        f"the graph of step {kept[0]} is"
        if len(kept) == 1
        else f"the graphs of {len(kept)} of them, from step {kept[0]} on, are"
    )
    return Outcome(
        False,
        f"after the {steps} steps, {alive} still alive (the tensors saved for backward are "
        "held): keep no reference to a loss that holds its graph (keep loss.item() or "
        "loss.detach()), so each step's graph is freed by its backward",
    )


def _parameter_name(index: int) -> str:
    return f"the {'weight' if index % 2 == 0 else 'bias'} of layer {index // 2 + 1} after training"


def _runs(student: CaseRecord, steps: int) -> Outcome:
    step_error = student.values.get("step_error")
    if isinstance(step_error, Rejected):
        return Outcome(False, step_error.reason)
    returned, measured = student_value(student, "returned"), student_value(student, "losses")
    if not isinstance(returned, list) or len(returned) != steps:
        return Outcome(False, f"expected {steps} training steps to run")
    if not isinstance(measured, list) or len(measured) != steps + 1:
        return Outcome(False, "the losses could not be measured")
    for step, value in enumerate(returned):
        outcome = _returned_loss(step + 1, value, measured[step], measured[step + 1])
        if not outcome.ok:
            return outcome
    return Outcome(True)


def _returned_loss(step: int, value: Any, before: Any, after: Any) -> Outcome:
    """A step returns its loss before the update: a number or a 0-D tensor without a graph.
    `before` and `after` are the losses the harness measured around the step's update."""
    if isinstance(value, TensorValue):
        if value.tensor.dim() != 0:
            return Outcome(
                False,
                f"step {step} returned a tensor of shape {tuple(value.tensor.shape)}, not the "
                "loss as one number (a 0-D tensor: loss.detach(), or loss.item())",
            )
        if value.requires_grad:
            return Outcome(
                False,
                f"step {step} returned a loss that still holds its graph "
                "(return loss.detach() or loss.item())",
            )
        number = float(value.tensor.reshape(-1)[0].double())
    elif type(value) in (int, float):
        number = float(value)
    else:
        return Outcome(False, f"step {step} returned {_kind(value)}, not the loss")
    if not math.isfinite(number):
        return Outcome(False, f"step {step} returned a loss of {number} (it diverged)")
    if not (isinstance(before, float) and isinstance(after, float)):
        return Outcome(False, "the losses could not be measured")
    if compare(number, before, RETURNED_LOSS).ok:
        return Outcome(True)
    return Outcome(False, _wrong_loss_message(step, number, before, after))


def _wrong_loss_message(step: int, number: float, before: float, after: float) -> str:
    """Blames the update's timing only when the returned value is the loss after it: any
    other value is a different loss, computed before the update or not."""
    if compare(number, after, RETURNED_LOSS).ok:
        return (
            f"step {step} returned {number:.6g}, the loss after that step's update (before it "
            f"the loss was {before:.6g}); return the loss computed before optimizer.step()"
        )
    return (
        f"step {step} returned {number:.6g}, but the loss of the model's output on this batch "
        f"before the update was {before:.6g}; check which loss you compute and how it is "
        "reduced, the shapes it compares, and that the model is in training mode during the "
        "forward pass"
    )


def _kind(value: Any) -> str:
    if isinstance(value, Rejected):
        return value.reason
    return "None" if value is None else f"a {type(value).__name__}"


def _all_steps_ran(student: CaseRecord, steps: int) -> Outcome | None:
    """A failed Outcome when training stopped before its last step (a step raised or left
    the model in evaluation mode): the loss is judged after every step, not part of them."""
    returned = student_value(student, "returned")
    finished = isinstance(returned, list) and len(returned) == steps
    if finished and not isinstance(student.values.get("step_error"), Rejected):
        return None
    return Outcome(False, f"training did not run all {steps} steps, so its loss is not judged")


def _decreases(case: Case, spec: Training, params: Any, tolerance: float) -> Outcome:
    if not (
        isinstance(params, list) and params and all(isinstance(p, TensorValue) for p in params)
    ):
        return Outcome(False, "the model's parameters could not be read after training")
    tensors = [p.tensor for p in params]
    initial, final = _initial_and_final_loss(case, spec, tensors)
    if final is None:
        return Outcome(False, "the parameters after training do not fit the model")
    if not math.isfinite(final):
        return Outcome(False, f"the loss diverged: {initial:.4g} before training, {final} after")
    target = initial - tolerance * abs(initial)
    if final < target:
        return Outcome(True)
    return Outcome(False, _not_falling_message(initial, final, target))


def _not_falling_message(initial: float, final: float, target: float) -> str:
    """Numbers that differ read differently, however close: a loss that moved a hair is
    not shown as the same number twice, nor a final loss just above the target as equal to it."""
    shown_initial, shown_final, shown_target = distinguishable(initial, final, target, least=4)
    if final == initial:
        return f"the loss stayed at {shown_initial}; it must fall below {shown_target}"
    return f"the loss went from {shown_initial} to {shown_final}; it must fall below {shown_target}"


def _initial_and_final_loss(
    case: Case, spec: Training, final: list[torch.Tensor]
) -> tuple[float, float | None]:
    x, y = training_data(spec, case.seed, "cpu")
    with torch.random.fork_rng(devices=[]):
        torch.default_generator.manual_seed(case.seed)  # as seed_everything does in the child
        initial = [p.detach() for p in build_model(spec, "cpu").parameters()]
    shapes_fit = len(final) == len(initial) and all(
        a.shape == b.shape for a, b in zip(final, initial, strict=True)
    )
    before = measure_loss(spec, initial, x, y)
    if not shapes_fit:
        return before, None
    return before, measure_loss(spec, [p.float() for p in final], x, y)

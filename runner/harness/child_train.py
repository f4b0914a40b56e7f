"""Child side of a `kind: training` case: a tiny seeded model and N training steps.

The harness measures the loss itself, functionally, from the parameter
tensors it created (not through the model's forward, which the answer could
replace), before the first step and after every step. `initial_parameters`
and `measure_loss` are also what the supervisor uses to recompute the losses
from the parameters it receives.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

import torch

from runner.harness import pristine, values
from runner.harness.child_call import new_record
from runner.harness.context import ChildContext, StudentError, bad, error_text
from runner.harness.marks import input_marks
from runner.harness.spec import PRESET_GRAD, Case
from runner.harness.spec_training import Training


def build_model(spec: Training, device: str) -> torch.nn.Module:
    """The case's model, initialised from the global RNG (seed it first)."""
    sizes = spec.sizes
    layers: list[torch.nn.Module] = []
    for index in range(len(sizes) - 1):
        if index:
            if spec.batch_norm:
                layers.append(pristine.BatchNorm1d(sizes[index], affine=False))
            layers.append(pristine.ReLU())
        layers.append(pristine.Linear(sizes[index], sizes[index + 1]))
    model = layers[0] if len(layers) == 1 else pristine.Sequential(*layers)
    return model.to(device)


def training_data(spec: Training, seed: int, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    x, y = values.build_values([spec.x, spec.y], seed, device)
    return x, y


def measure_loss(
    spec: Training, params: Sequence[torch.Tensor], x: torch.Tensor, y: torch.Tensor
) -> float:
    """The case's loss for `params` (weight, bias, weight, bias...), computed functionally."""
    with pristine.no_grad():
        hidden = x
        for index in range(0, len(params), 2):
            if index:
                if spec.batch_norm:  # as in training mode: by the batch's own statistics
                    hidden = pristine.batch_norm(hidden, None, None, training=True)
                hidden = pristine.relu(hidden)
            hidden = pristine.linear(hidden, params[index], params[index + 1])
        if spec.loss == "mse":
            loss = pristine.mse_loss(hidden, y)
        else:
            loss = pristine.bce_with_logits(hidden, y)
        return pristine.float_(pristine.item(loss))


class _Saved:
    """A tensor a step's graph saved for backward: it lives as long as that graph does."""

    __slots__ = ("__weakref__", "step", "tensor")

    def __init__(self, tensor: torch.Tensor, step: int) -> None:
        self.tensor, self.step = tensor, step


class _SavedTensors:
    """Every tensor the steps' graphs save goes through here, so the steps whose graphs are
    still alive (a loss kept with its graph, in a list, say) can be named afterwards."""

    def __init__(self) -> None:
        self.live: weakref.WeakSet[_Saved] = pristine.WeakSet()

    def during(self, step: int) -> AbstractContextManager[None]:
        def pack(tensor: torch.Tensor) -> _Saved:
            # Detached: a tensor a node saves may be its own output, whose grad_fn is that node;
            # held as it is, the node and the tensor would hold each other alive for good.
            saved = _Saved(pristine.detach(tensor), step)
            self.live.add(saved)
            return saved

        return pristine.saved_tensors_hooks(pack, _unpack)

    def kept_steps(self) -> list[int]:
        return sorted({saved.step for saved in list(self.live)})


def _unpack(saved: _Saved) -> torch.Tensor:
    return saved.tensor


def _in_training_mode(ctx: ChildContext, modules: list[torch.nn.Module]) -> bool:
    """Whether every module of the model is still in training mode, read under the guard:
    the answer may have given a module a class whose `training` runs the answer's code."""
    try:
        return ctx.run(lambda: all(module.training is True for module in modules)) is True
    except StudentError:
        return False


def run_training_case(case: Case, ctx: ChildContext) -> dict[str, Any]:
    """Run a training case; returned values, losses, final parameters and buffers, and what
    the steps left on the caller's data and RNG go back as data."""
    spec = case.training
    assert spec is not None  # noqa: S101  # parse_case sets it for training cases
    record = ctx.record = new_record(case)
    hits_before = len(ctx.guard.hits)
    values.seed_everything(case.seed, ctx.device)
    model = build_model(spec, ctx.device)
    params = list(model.parameters())
    buffers = list(model.buffers())
    optimizer_class = pristine.SGD if spec.optimizer == "sgd" else pristine.Adam
    optimizer = optimizer_class(params, lr=spec.lr)
    x, y = training_data(spec, case.seed, ctx.device)
    measured = [measure_loss(spec, params, x, y)]
    # Stale gradients, as a caller's earlier backward leaves them: a step must clear them first.
    for param in params:
        pristine.set_grad(param, pristine.mul(pristine.ones_like(param), PRESET_GRAD))
    with input_marks([x, y]) as marked:
        returned, draws = _train(case, ctx, model, optimizer, params, x, y, measured)
    record["input_marks"] = marked.marks
    # Whether x and y require grad and hold a .grad after the steps: an answer that switches
    # requires_grad on the caller's x has every backward write into x.grad, which no mark of
    # the call shows (the harness counts accumulations only on tensors that required grad).
    record["values"]["data_flags"] = ctx.encode(
        [[pristine.requires_grad_of(t), pristine.grad_of(t) is not None] for t in (x, y)]
    )
    record["values"]["rng_draws"] = ctx.encode(draws)
    record["values"]["returned"] = ctx.encode(returned)
    record["values"]["losses"] = ctx.encode(measured)
    record["values"]["params"] = ctx.encode([pristine.clone(pristine.detach(p)) for p in params])
    record["values"]["buffers"] = ctx.encode([pristine.clone(pristine.detach(b)) for b in buffers])
    record["forbidden"] = sorted(set(ctx.guard.hits[hits_before:]))
    return record


def _train(
    case: Case,
    ctx: ChildContext,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    params: Sequence[torch.Tensor],
    x: torch.Tensor,
    y: torch.Tensor,
    measured: list[float],
) -> tuple[list[Any], list[int]]:
    """The steps, measuring the loss after each into `measured`: what each step returned,
    and the steps that drew from or reseeded the global RNG (each call is seeded first); the
    steps whose graphs are still alive after the last go into the record."""
    spec = case.training
    assert spec is not None  # noqa: S101  # only called for training cases
    record = ctx.record
    returned: list[Any] = []
    draws: list[int] = []
    saved = _SavedTensors()
    modules = list(model.modules())
    try:
        for step in range(spec.steps):
            values.seed_everything(case.seed + step, ctx.device)  # as ctx.call seeds it
            seeded = values.global_rng_states()
            with saved.during(step + 1):
                returned.append(ctx.call([model, optimizer, x, y], {}, case.seed + step).output)
            if not values.same_rng_states(seeded, values.global_rng_states()):
                draws.append(step + 1)
            measured.append(measure_loss(spec, params, x, y))
            if not _in_training_mode(ctx, modules):
                record["values"]["step_error"] = bad(
                    f"step {step + 1} left the model in evaluation mode (model.eval()): a "
                    "training step runs it in training mode, where dropout drops and batch "
                    "norm updates its running statistics"
                )
                break
    except StudentError as error:
        record["error"] = error.info
        record["values"]["step_error"] = bad(
            f"step {len(returned) + 1} failed: {error_text(error)}"
        )
    record["values"]["graphs_kept"] = ctx.encode(saved.kept_steps())
    return returned, draws

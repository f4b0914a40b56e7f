"""Child side of a `kind: training` case: a tiny seeded model and N training steps.

The harness measures the loss itself, functionally, from the parameter
tensors it created (not through the model's forward, which the answer could
replace), before the first step and after every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812  # the conventional name

from runner.harness import values
from runner.harness.child_call import new_record
from runner.harness.context import ChildContext, StudentError, bad, error_text
from runner.harness.spec import Case
from runner.harness.spec_training import Training

_Linear = torch.nn.Linear
_ReLU = torch.nn.ReLU
_Sequential = torch.nn.Sequential
_SGD = torch.optim.SGD
_Adam = torch.optim.Adam
_linear = F.linear
_relu = F.relu
_mse = F.mse_loss
_bce = F.binary_cross_entropy_with_logits
_no_grad = torch.no_grad
_item = torch.Tensor.item
_detach = torch.Tensor.detach
_clone = torch.Tensor.clone
_Tensor = torch.Tensor
_isinstance = isinstance
_float = float
_type = type


def _build_model(spec: Training, device: str) -> torch.nn.Module:
    sizes = spec.sizes
    layers: list[torch.nn.Module] = []
    for index in range(len(sizes) - 1):
        if index:
            layers.append(_ReLU())
        layers.append(_Linear(sizes[index], sizes[index + 1]))
    model = layers[0] if len(layers) == 1 else _Sequential(*layers)
    return model.to(device)


def _measure(
    spec: Training, params: Sequence[torch.Tensor], x: torch.Tensor, y: torch.Tensor
) -> float:
    with _no_grad():
        hidden = x
        for index in range(0, len(params), 2):
            if index:
                hidden = _relu(hidden)
            hidden = _linear(hidden, params[index], params[index + 1])
        loss = _mse(hidden, y) if spec.loss == "mse" else _bce(hidden, y)
        return _float(_item(loss))


def _as_loss(value: Any) -> float | None:
    if _isinstance(value, _Tensor) and value.numel() == 1:
        return _float(_item(_detach(value)))
    if _type(value) in (int, float):
        return _float(value)
    return None


def run_training_case(case: Case, ctx: ChildContext) -> dict[str, Any]:
    """Run a training case; losses and final parameters are returned as data."""
    spec = case.training
    assert spec is not None  # noqa: S101  # parse_case sets it for training cases
    record = ctx.record = new_record(case)
    hits_before = len(ctx.guard.hits)
    values.seed_everything(case.seed, ctx.device)
    model = _build_model(spec, ctx.device)
    params = list(model.parameters())
    optimizer_class = _SGD if spec.optimizer == "sgd" else _Adam
    optimizer = optimizer_class(params, lr=spec.lr)
    x, y = values.build_values([spec.x, spec.y], case.seed, ctx.device)
    measured = [_measure(spec, params, x, y)]
    returned: list[float | None] = []
    try:
        for step in range(spec.steps):
            loss, _elapsed = ctx.call([model, optimizer, x, y], {}, case.seed + step)
            returned.append(_as_loss(loss))
            measured.append(_measure(spec, params, x, y))
    except StudentError as error:
        record["error"] = error.info
        record["values"]["step_error"] = bad(
            f"step {len(returned) + 1} failed: {error_text(error)}"
        )
    record["values"]["returned"] = ctx.encode(returned)
    record["values"]["losses"] = ctx.encode(measured)
    record["values"]["params"] = ctx.encode([_clone(_detach(p)) for p in params])
    record["forbidden"] = sorted(set(ctx.guard.hits[hits_before:]))
    return record

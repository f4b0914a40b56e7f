"""Tensor-against-tensor comparison: shape, dtype, device, NaN/inf, rtol/atol."""

from __future__ import annotations

import torch

from runner.harness.outcome import Outcome, Tolerance, got_and_expected
from runner.harness.payload import TensorValue


def _kind(dtype: torch.dtype) -> str:
    if dtype == torch.bool:
        return "bool"
    return "float" if dtype.is_floating_point else "integer"


def _name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _index(flat_index: int, shape: torch.Size) -> str:
    position = []
    for size in reversed(shape):
        position.append(flat_index % size)
        flat_index //= size
    return str(tuple(reversed(position)))


def compare_tensors(
    got: TensorValue, expected: TensorValue, tol: Tolerance, what: str = "the value"
) -> Outcome:
    """Compare two decoded tensors; the message names `what` and the first difference."""
    g, e = got.tensor, expected.tensor
    if g.shape != e.shape:
        return Outcome(False, f"{what} has shape {tuple(g.shape)}, expected {tuple(e.shape)}")
    if g.dtype != e.dtype and (tol.dtype == "strict" or _kind(g.dtype) != _kind(e.dtype)):
        return Outcome(False, f"{what} has dtype {_name(g.dtype)}, expected {_name(e.dtype)}")
    if tol.check_device and got.device != expected.device:
        return Outcome(False, f"{what} is on {got.device}, expected {expected.device}")
    if g.numel() == 0:
        return Outcome(True, max_abs=0.0, max_rel=0.0)
    if _kind(e.dtype) != "float":
        return _exact(g, e, what)
    return _close(g.double(), e.double(), tol, e.shape, what)


def _exact(g: torch.Tensor, e: torch.Tensor, what: str) -> Outcome:
    differs = (g.long() != e.long()).reshape(-1)
    count = int(differs.sum())
    if not count:
        return Outcome(True, max_abs=0.0, max_rel=0.0)
    first = int(differs.nonzero()[0])
    got, want = g.reshape(-1)[first].item(), e.reshape(-1)[first].item()
    where = _index(first, g.shape)
    message = f"{what}: {count} of {differs.numel()} values differ, first at index {where}"
    return Outcome(False, message, detail=f"got {got}, expected {want}")


def _close(
    g: torch.Tensor, e: torch.Tensor, tol: Tolerance, shape: torch.Size, what: str
) -> Outcome:
    g, e = g.reshape(-1), e.reshape(-1)
    special = _special_mismatch(g, e, tol, shape, what)
    if special is not None:
        return special
    finite = torch.isfinite(g) & torch.isfinite(e)
    error = torch.where(finite, (g - e).abs(), torch.zeros_like(g))
    scale = e.abs()
    relative = torch.where(finite & (scale > 0), error / scale.clamp_min(1e-300), 0.0)
    max_abs, max_rel = float(error.max()), float(relative.max())
    # Non-finite positions were already matched above; they must not win argmax.
    excess = torch.where(finite, error - (tol.atol + tol.rtol * scale), -torch.inf)
    worst_index = int(excess.argmax())
    if float(excess[worst_index]) <= 0:
        return Outcome(True, max_abs=max_abs, max_rel=max_rel)
    index = _index(worst_index, shape)
    off = float(error[worst_index])
    return Outcome(
        False,
        f"{what} differs at index {index} by {off:.3g}, more than {tol.describe()} allows",
        max_abs=max_abs,
        max_rel=max_rel,
        detail=got_and_expected(float(g[worst_index]), float(e[worst_index])),
    )


def _special_mismatch(
    g: torch.Tensor, e: torch.Tensor, tol: Tolerance, shape: torch.Size, what: str
) -> Outcome | None:
    """NaN and infinities must match position for position (NaN only if equal_nan)."""
    g_nan, e_nan = torch.isnan(g), torch.isnan(e)
    bad_nan = g_nan | e_nan if not tol.equal_nan else g_nan ^ e_nan
    g_inf, e_inf = torch.isinf(g), torch.isinf(e)
    bad_inf = (g_inf | e_inf) & ~(g_inf & e_inf & (g == e))
    bad = bad_nan | (bad_inf & ~(g_nan | e_nan))
    if not bool(bad.any()):
        return None
    first = int(bad.nonzero()[0])
    got, want = float(g[first]), float(e[first])
    where = _index(first, shape)
    return Outcome(False, f"{what} has {got} at index {where} where {want} was expected")

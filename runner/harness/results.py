"""Typed, validated view of a child's payload header (supervisor side)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runner.harness.payload import NodeDecoder, PayloadError, split_payload

VALUE_KEYS = {
    "output", "inputs_after", "grads", "grads_once", "grads_twice", "rerun",
    "gradcheck_grads", "returned", "losses", "params", "step_error", "retained_grads",
}  # fmt: skip
GRAPH_OUTCOMES = ("kept", "freed", "no_graph", "error")


@dataclass(frozen=True)
class ErrorInfo:
    type: str
    message: str
    traceback: str

    def as_dict(self) -> dict[str, str]:
        return {"type": self.type, "message": self.message, "traceback": self.traceback}


@dataclass(frozen=True)
class GraphFact:
    """What a backward through a fresh call's output met: see GRAPH_OUTCOMES."""

    outcome: str
    message: str


@dataclass(frozen=True)
class CaseRecord:
    name: str
    error: ErrorInfo | None
    time_s: float | None
    peak_bytes: int | None
    gradcheck: tuple[bool, str] | None
    efficiency_error: str | None
    forbidden: list[str]
    values: dict[str, Any] = field(default_factory=dict)
    retain_graph: GraphFact | None = None


@dataclass(frozen=True)
class ChildResult:
    load_error: ErrorInfo | None
    harness_error: str | None
    forbidden: list[str]
    cases: list[CaseRecord]


def decode_result(data: bytes) -> ChildResult:
    """Decode and validate a whole payload; raises PayloadError on any inconsistency."""
    decoded = split_payload(data)
    header, decoder = decoded.header, NodeDecoder(decoded.blob)
    cases = header.get("cases")
    if not isinstance(cases, list):
        raise PayloadError("header has no case list")
    return ChildResult(
        load_error=_error(header.get("load_error")),
        harness_error=_optional_str(header.get("harness_error"), "harness_error"),
        forbidden=_names(header.get("forbidden")),
        cases=[_case(item, decoder) for item in cases],
    )


def _case(raw: object, decoder: NodeDecoder) -> CaseRecord:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise PayloadError("a case record is malformed")
    values = raw.get("values")
    if not isinstance(values, dict) or set(values) - VALUE_KEYS:
        raise PayloadError("a case record has malformed values")
    return CaseRecord(
        name=raw["name"],
        error=_error(raw.get("error")),
        time_s=_optional_number(raw.get("time_s"), "time_s"),
        peak_bytes=_optional_int(raw.get("peak_bytes")),
        gradcheck=_gradcheck(raw.get("gradcheck")),
        efficiency_error=_optional_str(raw.get("efficiency_error"), "efficiency_error"),
        forbidden=_names(raw.get("forbidden")),
        values={key: decoder.decode(node) for key, node in values.items()},
        retain_graph=_graph_fact(raw.get("retain_graph")),
    )


def _error(raw: object) -> ErrorInfo | None:
    if raw is None:
        return None
    keys = ("type", "message", "traceback")
    if not isinstance(raw, dict) or not all(isinstance(raw.get(key), str) for key in keys):
        raise PayloadError("an error record is malformed")
    return ErrorInfo(raw["type"][:200], raw["message"][:2000], raw["traceback"][:8000])


def _gradcheck(raw: object) -> tuple[bool, str] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("ok"), bool):
        raise PayloadError("a gradcheck record is malformed")
    return raw["ok"], str(_optional_str(raw.get("message"), "gradcheck message") or "")


def _graph_fact(raw: object) -> GraphFact | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or raw.get("outcome") not in GRAPH_OUTCOMES:
        raise PayloadError("a retain_graph record is malformed")
    message = _optional_str(raw.get("message"), "retain_graph message") or ""
    return GraphFact(raw["outcome"], message[:2000])


def _names(raw: object) -> list[str]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        raise PayloadError("a forbidden list is malformed")
    return [item[:200] for item in raw]


def _optional_str(raw: object, what: str) -> str | None:
    if raw is None or isinstance(raw, str):
        return raw
    raise PayloadError(f"{what} is not a string")


def _optional_number(raw: object, what: str) -> float | None:
    if raw is None:
        return None
    if isinstance(raw, int | float) and not isinstance(raw, bool) and raw >= 0:
        return float(raw)
    raise PayloadError(f"{what} is not a non-negative number")


def _optional_int(raw: object) -> int | None:
    if raw is None:
        return None
    if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0:
        return raw
    raise PayloadError("peak_bytes is not a non-negative integer")

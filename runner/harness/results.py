"""Typed, validated view of a child's payload header (supervisor side)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeGuard

from runner.harness.payload import NodeDecoder, PayloadError, split_payload

VALUE_KEYS = set(
    """
    output inputs_after rng_after grads grads_before grads_once grads_twice rerun gradcheck_grads
    returned losses params step_error retained_grads upstream_after output_after
    plain_grads edited_grads edited_input_grads ctx_tensors
    buffers rng_draws graphs_kept data_flags output_reused
""".split()
)
ENTRY_KINDS = ("function", "autograd_function")
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
class InputMark:
    """What the compared call left on one input beyond its values (see harness.marks)."""

    hooks: int  # hooks left on it after the call
    written: bool  # its version counter moved during the call
    moved: bool  # its storage, storage offset, size or strides changed during the call
    accumulated: int  # gradients accumulated into its .grad during the call
    grad_kept: bool | None  # its .grad before the call is its .grad after it (None: it had none)
    reaches: bool  # a later backward through it brings its gradient to .grad unchanged
    backward_error: str | None  # what that later backward raised


@dataclass(frozen=True)
class CaseRecord:
    name: str
    error: ErrorInfo | None
    gradcheck: tuple[bool, str] | None
    forbidden: list[str]
    values: dict[str, Any] = field(default_factory=dict)
    retain_graph: GraphFact | None = None
    graph_recorded: bool | None = None
    peak_bytes: int | None = None  # tensor memory of the compared call, for efficiency cases
    input_reads: int | None = None  # input elements the compared call read, for input_reads
    graph_nodes: int | None = None  # autograd nodes the compared call created, for graph_nodes
    aliased_inputs: list[int] | None = None  # inputs the output shares memory with (fresh_output)
    input_marks: list[InputMark] | None = None  # one per input tensor, for purity
    # One per input tensor, left by the second call of grad_accumulates (its .grad then set).
    second_call_marks: list[InputMark] | None = None


@dataclass(frozen=True)
class ChildResult:
    load_error: ErrorInfo | None
    harness_error: str | None
    forbidden: list[str]
    cases: list[CaseRecord]
    entry_kind: str | None = None


@dataclass(frozen=True)
class TimedRun:
    """What a timing child sent back: the timed calls' outputs, or why there are none."""

    load_error: ErrorInfo | None
    harness_error: str | None
    error: ErrorInfo | None
    outputs: list[Any]


def decode_result(data: bytes) -> ChildResult:
    """Decode and validate a whole payload; raises PayloadError on any inconsistency."""
    decoded = split_payload(data)
    header, decoder = decoded.header, NodeDecoder(decoded.blob)
    cases = header.get("cases")
    if not isinstance(cases, list):
        raise PayloadError("header has no case list")
    entry_kind = header.get("entry_kind")
    if entry_kind is not None and entry_kind not in ENTRY_KINDS:
        raise PayloadError("the entry kind is malformed")
    return ChildResult(
        load_error=_error(header.get("load_error")),
        harness_error=_optional_str(header.get("harness_error"), "harness_error"),
        forbidden=_names(header.get("forbidden")),
        cases=[_case(item, decoder) for item in cases],
        entry_kind=entry_kind,
    )


def decode_timed(data: bytes) -> TimedRun:
    """Decode a timing child's payload; raises PayloadError on any inconsistency."""
    decoded = split_payload(data)
    header, decoder = decoded.header, NodeDecoder(decoded.blob)
    outputs = header.get("outputs")
    if not isinstance(outputs, list):
        raise PayloadError("header has no output list")
    return TimedRun(
        load_error=_error(header.get("load_error")),
        harness_error=_optional_str(header.get("harness_error"), "harness_error"),
        error=_error(header.get("error")),
        outputs=[decoder.decode(node) for node in outputs],
    )


def _case(raw: object, decoder: NodeDecoder) -> CaseRecord:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise PayloadError("a case record is malformed")
    values = raw.get("values")
    if not isinstance(values, dict) or set(values) - VALUE_KEYS:
        raise PayloadError("a case record has malformed values")
    graph_recorded = raw.get("graph_recorded")
    if graph_recorded is not None and not isinstance(graph_recorded, bool):
        raise PayloadError("graph_recorded is not a bool")
    return CaseRecord(
        name=raw["name"],
        error=_error(raw.get("error")),
        gradcheck=_gradcheck(raw.get("gradcheck")),
        forbidden=_names(raw.get("forbidden")),
        values={key: decoder.decode(node) for key, node in values.items()},
        retain_graph=_graph_fact(raw.get("retain_graph")),
        graph_recorded=graph_recorded,
        peak_bytes=_optional_int(raw.get("peak_bytes")),
        input_reads=_optional_int(raw.get("input_reads"), "a count of input reads"),
        graph_nodes=_optional_int(raw.get("graph_nodes"), "a count of graph nodes"),
        aliased_inputs=_positions(raw.get("aliased_inputs")),
        input_marks=_marks(raw.get("input_marks")),
        second_call_marks=_marks(raw.get("second_call_marks")),
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


def _positions(raw: object) -> list[int] | None:
    if raw is None:
        return None
    if isinstance(raw, list) and all(_is_count(item) for item in raw):
        return list(raw)
    raise PayloadError("a list of input positions is malformed")


def _marks(raw: object) -> list[InputMark] | None:
    if raw is None:
        return None
    if isinstance(raw, list) and all(_is_mark(item) for item in raw):
        return [InputMark(**item) for item in raw]
    raise PayloadError("a list of marks on the inputs is malformed")


def _is_mark(raw: object) -> TypeGuard[dict[str, Any]]:
    return (
        isinstance(raw, dict)
        and set(raw)
        == {"hooks", "written", "moved", "accumulated", "grad_kept", "reaches", "backward_error"}
        and _is_count(raw["hooks"])
        and isinstance(raw["written"], bool)
        and isinstance(raw["moved"], bool)
        and _is_count(raw["accumulated"])
        and (raw["grad_kept"] is None or isinstance(raw["grad_kept"], bool))
        and isinstance(raw["reaches"], bool)
        and (raw["backward_error"] is None or isinstance(raw["backward_error"], str))
    )


def _optional_str(raw: object, what: str) -> str | None:
    if raw is None or isinstance(raw, str):
        return raw
    raise PayloadError(f"{what} is not a string")


def _optional_int(raw: object, what: str = "a byte count") -> int | None:
    if raw is None:
        return None
    if _is_count(raw):
        return raw
    raise PayloadError(f"{what} is not a non-negative integer")


def _is_count(raw: object) -> TypeGuard[int]:
    return isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0

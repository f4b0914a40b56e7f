"""Supervisor-side verdicts for each check kind, decided from payload data and kernel figures.

Every verdict compares the answer's data with the reference's (or with what
the kernel measured); no flag the answer's process reports passes on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from runner.harness.compare import compare, exact
from runner.harness.judge_common import (
    ReferenceFailure,
    each_tensor,
    reference_value,
    student_value,
)
from runner.harness.judge_efficiency import TimingEvidence, judge_efficiency
from runner.harness.outcome import Outcome, Tolerance
from runner.harness.payload import Rejected, TensorValue
from runner.harness.results import CaseRecord, InputMark
from runner.harness.spec import PRESET_GRAD, REFUSED_AFTER_EDIT, Case, Check


@dataclass(frozen=True)
class JudgeInput:
    case: Case
    check: Check
    student: CaseRecord
    reference: CaseRecord
    tolerance: Tolerance
    efficiency: dict[str, float]
    inputs: list[tuple[str, bool]] = field(default_factory=list)  # (label, requires_grad)
    timing: TimingEvidence | None = None

    @property
    def number(self) -> int:
        return self.case.index + 1

    def ref(self, key: str) -> Any:
        return reference_value(self.reference, key, self.number)

    @property
    def grad_labels(self) -> list[str]:
        return [label for label, requires_grad in self.inputs if requires_grad]


def _labelled(outcome: Outcome, what: str) -> Outcome:
    return outcome if outcome.ok else replace(outcome, message=f"{what}: {outcome.message}")


# The reference's output leads no gradient back to the input (a loss returned detached, say).
UNEXPECTED_GRADIENT = (
    "backward through the returned output reached {name}, where no gradient should reach it "
    "(is the output still attached to the graph that leads to {name}?)"
)


def compare_gradients(
    got: Any, expected: Any, tolerance: Tolerance, labels: list[str], what: str = "the gradient"
) -> Outcome:
    """Gradients of the inputs that require grad, each named after its input."""
    if isinstance(got, Rejected):
        return Outcome(False, f"gradients: {got.reason}")
    if not (isinstance(got, list) and isinstance(expected, list) and len(got) == len(expected)):
        return compare(got, expected, tolerance, "the gradients")
    parts = []
    for index, (g, e) in enumerate(zip(got, expected, strict=True)):
        name = labels[index] if index < len(labels) else f"input {index + 1}"
        if g is None and e is not None:
            return Outcome(False, f"{name} received no gradient (is it used, and not detached?)")
        if e is None and g is not None:
            return Outcome(False, UNEXPECTED_GRADIENT.format(name=name))
        parts.append(compare(g, e, tolerance, f"{what} of {name}"))
    return next((part for part in parts if not part.ok), Outcome(True))


def gradients(j: JudgeInput) -> Outcome:
    got, expected = student_value(j.student, "grads"), j.ref("grads")
    left = Outcome(True) if isinstance(got, Rejected) else _grads_left_by_call(j)
    if not left.ok:
        return left.as_kind("side_effect")
    grads = compare_gradients(got, expected, j.tolerance, j.grad_labels)
    if not grads.ok:
        return grads.as_kind("gradients")
    after, expected_after = student_value(j.student, "upstream_after"), j.ref("upstream_after")
    upstream = compare(after, expected_after, exact(j.tolerance), "the upstream gradient")
    output = student_value(j.student, "output")
    # An output of another shape or dtype was sent an upstream gradient like itself: only one
    # like the reference's can show an edit; otherwise the output itself is what differs.
    if not upstream.ok and _same_shapes_and_dtypes(after, expected_after):
        message = f"the backward changed the incoming gradient in place: {upstream.message}"
        return Outcome(False, message, kind="side_effect")
    if not upstream.ok:
        unlike = compare(output, j.ref("output"), j.tolerance, "the output")
        if not unlike.ok:
            return unlike
    after = compare(student_value(j.student, "output_after"), output, exact(j.tolerance), "it")
    if after.ok:
        return grads
    message = f"the backward changed the call's output in place: {after.message}"
    return Outcome(False, message, kind="side_effect")


def _same_shapes_and_dtypes(got: Any, expected: Any) -> bool:
    if not (isinstance(got, list) and isinstance(expected, list) and len(got) == len(expected)):
        return False
    return all(
        isinstance(g, TensorValue)
        and isinstance(e, TensorValue)
        and g.tensor.shape == e.tensor.shape
        and g.tensor.dtype == e.tensor.dtype
        for g, e in zip(got, expected, strict=True)
    )


def _grads_left_by_call(j: JudgeInput) -> Outcome:
    """The .grad the call itself left on each input, before the check's backward, as the
    reference left it (the gradients compared are what that backward adds)."""
    got, expected = student_value(j.student, "grads_before"), j.ref("grads_before")
    if not (isinstance(got, list) and isinstance(expected, list) and len(got) == len(expected)):
        return Outcome(False, "the gradients before backward could not be read")
    labels = j.grad_labels
    for index, (g, e) in enumerate(zip(got, expected, strict=True)):
        label = labels[index] if index < len(labels) else f"input {index + 1}"
        outcome = _grad_after_call(g, e, label, j.tolerance)
        if not outcome.ok:
            return outcome
    return Outcome(True)


def _flag(j: JudgeInput, name: str) -> Outcome:
    """With `expected`, the output's (its first tensor's) flag is that; without, every tensor
    of the output has the flag of the reference's tensor in its place (a tuple's second
    element that must not require grad is held to it too)."""
    got = each_tensor(student_value(j.student, "output"))
    if not got:
        return Outcome(False, f"{name}: the output is not a tensor", kind="graph")
    expected = j.check.options.get("expected")
    if expected is not None:
        pairs = [(got[0], expected)]
    else:
        # A different number of tensors fails the output's own comparison.
        reference = each_tensor(j.ref("output"))
        pairs = [(g, getattr(r, name)) for g, r in zip(got, reference, strict=False)]
    for index, (tensor, wanted) in enumerate(pairs):
        actual = getattr(tensor, name)
        if actual != wanted:
            which = "the output's" if len(got) == 1 else f"output tensor {index + 1}'s"
            return Outcome(False, f"{which} {name} is {actual}, expected {wanted}", kind="graph")
    return Outcome(True)


def grad_accumulates(j: JudgeInput) -> Outcome:
    labels = j.grad_labels
    once = compare_gradients(
        student_value(j.student, "grads_once"), j.ref("grads_once"), j.tolerance, labels
    )
    if not once.ok:
        return _labelled(once, "after one call and backward").as_kind("gradients")
    twice = compare_gradients(
        student_value(j.student, "grads_twice"), j.ref("grads_twice"), j.tolerance, labels
    )
    if not twice.ok:
        return _labelled(twice, "gradients do not add up over two calls").as_kind("gradients")
    return _second_call_kept_grads(j).as_kind("side_effect")


def _second_call_kept_grads(j: JudgeInput) -> Outcome:
    """The second call, which found the first's gradients in .grad, added into those tensors
    wherever the reference's did."""
    expected = j.reference.second_call_marks
    if expected is None:
        raise ReferenceFailure(
            f"case {j.number}: the marks of the reference's second call were not read"
        )
    got = j.student.second_call_marks or []
    if len(got) != len(expected):
        return Outcome(False, "the marks of the second call could not be read")
    for index, (mark, expected_mark) in enumerate(zip(got, expected, strict=True)):
        outcome = _grad_replaced(mark, expected_mark, _input_label(j, index))
        if not outcome.ok:
            return outcome
    return Outcome(True)


SAVED_ELSEWHERE = (
    "with {what} edited in place after the call, backward used the edited values instead "
    "of refusing (keep what backward needs with ctx.save_for_backward)"
)


# A copy kept on ctx is out of reach of the edits above; the reference keeps none there.
KEPT_ON_CTX = (
    "the forward kept a tensor as {names} instead of saving it with ctx.save_for_backward "
    "(autograd then cannot check it was not changed in place before backward)"
)
_MAX_NAMES, _MAX_NAME = 5, 80


def saved_tensors(j: JudgeInput) -> Outcome:
    expected, labels = j.ref("plain_grads"), j.grad_labels
    plain = compare_gradients(
        student_value(j.student, "plain_grads"), expected, j.tolerance, labels
    )
    if not plain.ok:
        return _labelled(plain, "without any edit").as_kind("gradients")
    for key, what in (("edited_grads", "the output"), ("edited_input_grads", "the inputs")):
        edited = student_value(j.student, key)
        if edited == REFUSED_AFTER_EDIT:  # autograd saw the edit: kept with save_for_backward
            continue
        grads = compare_gradients(edited, expected, j.tolerance, labels)
        if not grads.ok:
            return _labelled(grads, SAVED_ELSEWHERE.format(what=what)).as_kind("gradients")
    kept = student_value(j.student, "ctx_tensors")
    if not j.ref("ctx_tensors") and isinstance(kept, list) and kept:
        names = ", ".join(str(name)[:_MAX_NAME] for name in kept[:_MAX_NAMES])
        more = f" and {len(kept) - _MAX_NAMES} more" if len(kept) > _MAX_NAMES else ""
        return Outcome(False, KEPT_ON_CTX.format(names=names + more), kind="graph")
    return Outcome(True)


def _tensors(value: Any) -> list[TensorValue]:
    found: list[TensorValue] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, TensorValue):
            found.append(item)
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
    return found


def purity(j: JudgeInput) -> Outcome:
    """Inputs, their requires_grad, their .grad, what the call left on them beyond their
    values (hooks, in-place writes, a replaced storage, gradients accumulated, a replaced
    .grad) and the global RNG end as the reference's do."""
    after = student_value(j.student, "inputs_after")
    if isinstance(after, Rejected):
        return Outcome(False, f"the inputs after the call are {after.reason}", kind="side_effect")
    if j.reference.input_marks is None:
        raise ReferenceFailure(
            f"case {j.number}: the marks on the reference's inputs were not read"
        )
    got, expected = _tensors(after), _tensors(j.ref("inputs_after"))
    marks, expected_marks = j.student.input_marks or [], j.reference.input_marks
    if not len(got) == len(expected) == len(marks) == len(expected_marks):
        return Outcome(False, "the inputs after the call could not be read", kind="side_effect")
    strict = exact(j.tolerance)
    for index, (g, e) in enumerate(zip(got, expected, strict=True)):
        label = _input_label(j, index)
        outcome = _input_unchanged(g, e, label, j.tolerance)
        if outcome.ok and e.grad_recorded:
            outcome = _grad_after_call(g.grad, e.grad, label, j.tolerance)
        if outcome.ok:
            outcome = _marks_left(marks[index], expected_marks[index], label)
        if not outcome.ok:
            return outcome.as_kind("side_effect")
    rng = compare(student_value(j.student, "rng_after"), j.ref("rng_after"), strict, "rng")
    if not rng.ok:
        return Outcome(
            False,
            "the call reseeded or drew from a global random number generator (torch's or "
            "Python's random module), which the caller shares; draw from a torch.Generator "
            "of your own",
            kind="side_effect",
        )
    return Outcome(True)


def _input_label(j: JudgeInput, index: int) -> str:
    """The label of the input tensor at `index` in `tensors_in(inputs)` order."""
    return j.inputs[index][0] if index < len(j.inputs) else f"input {index + 1}"


def _input_unchanged(
    got: TensorValue, expected: TensorValue, label: str, tolerance: Tolerance
) -> Outcome:
    values = compare(got, expected, exact(tolerance), "its value")
    if not values.ok:
        return replace(values, message=f"the input {label} was changed in place: {values.message}")
    if got.requires_grad != expected.requires_grad:
        return Outcome(
            False,
            f"the call switched requires_grad of the input {label} from {expected.requires_grad}"
            f" to {got.requires_grad}; leave the caller's tensors as they were",
        )
    return Outcome(True)


def _grad_after_call(
    got: TensorValue | None, expected: TensorValue | None, label: str, tolerance: Tolerance
) -> Outcome:
    """The input's .grad after the call: as it was when the reference leaves it alone, else
    (a function whose job is to run backward into it) the reference's, within tolerance."""
    if not _left_alone(expected):
        return compare_gradients(
            [got], [expected], tolerance, [label], "the gradient the call left in .grad"
        )
    if (got is None) == (expected is None) and _left_alone(got):
        return Outcome(True)
    return Outcome(
        False,
        f"the call changed the gradient (.grad) of the input {label}: it must not run "
        "backward into the caller's tensors or reset their .grad",
    )


def _marks_left(got: InputMark, expected: InputMark, label: str) -> Outcome:
    """Hooks, in-place writes, a replaced storage, gradient accumulations, a replaced .grad and
    a spoilt gradient path on the input beyond the reference's."""
    if got.hooks > expected.hooks:
        return Outcome(
            False,
            f"the call left a gradient hook on the input {label}; leave the caller's tensors "
            "as they were",
        )
    if got.written and not expected.written:
        return Outcome(
            False,
            f"the call wrote into the input {label} in place (even if its values are "
            "unchanged, its version counter moved, which breaks a caller's backward through it)",
        )
    if got.moved and not expected.moved:
        return Outcome(
            False,
            f"the call replaced the storage of the input {label} (x.data = ...), so the "
            f"caller's {label} no longer shares memory as it did; leave the caller's tensors "
            "as they were",
        )
    if got.accumulated > expected.accumulated:
        return _accumulated_more(got.accumulated, expected.accumulated, label)
    replaced = _grad_replaced(got, expected, label)
    if not replaced.ok:
        return replaced
    if expected.reaches and not got.reaches:
        return _later_backward_spoilt(got.backward_error, label)
    return Outcome(True)


def _grad_replaced(got: InputMark, expected: InputMark, label: str) -> Outcome:
    """The call put a new tensor in the input's .grad where the reference kept the caller's
    (backward adds into an existing .grad in place)."""
    if expected.grad_kept and not got.grad_kept:
        return Outcome(
            False,
            f"the call replaced the .grad tensor of the input {label} with a new one (the "
            "caller's old .grad no longer changes); add into it in place, as backward() does",
        )
    return Outcome(True)


def _accumulated_more(got: int, expected: int, label: str) -> Outcome:
    if expected:
        return Outcome(
            False,
            f"the call accumulated gradients into the .grad of the input {label} "
            f"{_times(got)}, where {_times(expected)} is expected",
        )
    return Outcome(
        False,
        f"the call accumulated gradients into the .grad of the input {label} (and put it "
        "back); compute them without touching the caller's .grad, e.g. with "
        "torch.autograd.grad",
    )


def _later_backward_spoilt(error: str | None, label: str) -> Outcome:
    """A later backward of the caller's through the input raised, or did not bring the
    input's gradient to its .grad unchanged (a hook left on its gradient accumulator)."""
    happened = (
        f"raised ({error})" if error is not None else f"does not reach {label}.grad unchanged"
    )
    return Outcome(
        False,
        f"a later backward through the input {label} {happened}: the call left a hook on "
        f"{label}'s gradient path; leave the caller's tensors as they were",
    )


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def _left_alone(grad: TensorValue | None) -> bool:
    """A .grad the call did not touch: none (the input requires no grad) or the preset one."""
    return grad is None or bool((grad.tensor == PRESET_GRAD).all())


def no_graph(j: JudgeInput) -> Outcome:
    if j.reference.graph_recorded is not False:
        raise ReferenceFailure(f"case {j.number}: the reference recorded autograd history")
    if j.student.graph_recorded is None:
        return Outcome(False, "no_graph: the check produced no data", kind="graph")
    if j.student.graph_recorded:
        return Outcome(
            False,
            "the call recorded autograd history (a graph was built and then dropped); compute "
            "under torch.no_grad() or torch.inference_mode() so no graph is built at all",
            kind="graph",
        )
    return Outcome(True)


def input_reads(j: JudgeInput) -> Outcome:
    """The input elements the compared call read, against the reference's count."""
    theirs, mine = j.reference.input_reads, j.student.input_reads
    if theirs is None:
        raise ReferenceFailure(f"case {j.number}: the reference's reads were not counted")
    if theirs == 0:
        raise ReferenceFailure(f"case {j.number}: the reference read none of its inputs")
    if mine is None:
        return Outcome(False, "input_reads: the check produced no data", kind="reads")
    limit, ratio = float(j.check.options.get("max_ratio", 1)), mine / theirs
    if ratio <= limit:
        return Outcome(True)
    return Outcome(
        False,
        f"the call read its inputs {ratio:.2f}× as often as the reference does (limit "
        f"{limit:g}×): compute each value once, without another pass over the inputs",
        kind="reads",
    )


def graph_nodes(j: JudgeInput) -> Outcome:
    """The autograd nodes the compared call created, against the reference's count."""
    theirs, mine = j.reference.graph_nodes, j.student.graph_nodes
    if theirs is None:
        raise ReferenceFailure(f"case {j.number}: the reference's graph was not counted")
    if mine is None:
        return Outcome(False, "graph_nodes: the check produced no data", kind="graph")
    limit = float(j.check.options.get("max_ratio", 1))
    if mine <= theirs * limit:
        return Outcome(True)
    return Outcome(
        False,
        f"the call built {mine} autograd nodes where the reference builds {theirs} (limit "
        f"{limit:g}×): a gradient taken with create_graph=True records a graph of the "
        f"backward pass itself; leave it out when nothing differentiates the result",
        kind="graph",
    )


def fresh_output(j: JudgeInput) -> Outcome:
    """No output tensor shares memory with an input."""
    if j.reference.aliased_inputs is None:
        raise ReferenceFailure(f"case {j.number}: the reference's output was not looked at")
    if j.reference.aliased_inputs:
        raise ReferenceFailure(f"case {j.number}: the reference's output shares an input's memory")
    aliased = j.student.aliased_inputs
    if aliased is None:
        return Outcome(False, "fresh_output: the check produced no data", kind="aliasing")
    if not aliased:
        return _not_reused(j)
    index = aliased[0]
    label = _input_label(j, index)
    return Outcome(
        False,
        f"the output shares memory with the input {label} (it is the input itself, a view of "
        f"it or its detach()): return a new tensor, so that editing the result in place "
        f"leaves {label} unchanged",
        kind="aliasing",
    )


def _not_reused(j: JudgeInput) -> Outcome:
    """A second call returns new memory too, where the reference's does."""
    if student_value(j.student, "output_reused") is not True:
        return Outcome(True)
    if j.reference.values.get("output_reused") is True:
        return Outcome(True)
    return Outcome(
        False,
        "a second call returned memory the first call's output lives in (a buffer kept and "
        "refilled between calls): return a new tensor each call, so that calling again leaves "
        "a result the caller holds unchanged",
        kind="aliasing",
    )


def determinism(j: JudgeInput) -> Outcome:
    output = student_value(j.student, "output")
    rerun = compare(student_value(j.student, "rerun"), output, exact(j.tolerance), "the rerun")
    return _labelled(rerun, "two runs with the same seed differ").as_kind("determinism")


def gradcheck(j: JudgeInput) -> Outcome:
    if j.student.gradcheck is None:
        return Outcome(False, "gradcheck did not run", kind="gradients")
    ok, message = j.student.gradcheck
    if not ok:
        text = message or "numerical and analytical gradients differ"
        return Outcome(False, f"gradcheck failed: {text}", kind="gradients")
    options = j.check.options
    tolerance = Tolerance(rtol=options.get("rtol", 1e-3), atol=options.get("atol", 1e-5))
    got = student_value(j.student, "gradcheck_grads")
    grads = compare_gradients(
        got,
        j.ref("gradcheck_grads"),
        tolerance,
        j.grad_labels,
        "with a random upstream gradient (float64), the gradient",
    )
    return grads.as_kind("gradients")


def efficiency(j: JudgeInput) -> Outcome:
    if j.timing is None:
        return Outcome(False, "efficiency: the timed run did not happen", kind="efficiency")
    memory = (j.student.peak_bytes, j.reference.peak_bytes)
    return judge_efficiency(j.timing, j.efficiency, j.tolerance, j.number, memory)


GRAPH_MESSAGES = {
    (True, "freed"): "the graph behind the output was freed (call backward/grad with "
    "retain_graph=True)",
    (False, "kept"): "the graph behind the output was kept: a second backward through it "
    "worked, but it should have been freed (drop retain_graph=True)",
    (True, "no_graph"): "the output does not require grad, so there is no graph to "
    "backpropagate through",
    (False, "no_graph"): "the output does not require grad: expected a graph that was "
    "used and then freed",
}


def retain_graph(j: JudgeInput) -> Outcome:
    """Kept or freed as `expected`; a kept graph must also give the reference's gradients."""
    expected = bool(j.check.options["expected"])
    wanted = "kept" if expected else "freed"
    theirs = j.reference.retain_graph
    if theirs is None or theirs.outcome != wanted:
        found = "no data" if theirs is None else f"{theirs.outcome} {theirs.message}".strip()
        raise ReferenceFailure(f"case {j.number}: retain_graph expects {wanted}, got {found}")
    mine = j.student.retain_graph
    if mine is None:
        return Outcome(False, "retain_graph: the check produced no data", kind="graph")
    if mine.outcome == "error":
        return Outcome(False, f"backward through the output failed: {mine.message}", kind="graph")
    if mine.outcome != wanted:
        return Outcome(False, GRAPH_MESSAGES[(expected, mine.outcome)], kind="graph")
    if not expected:
        return Outcome(True)
    got = student_value(j.student, "retained_grads")
    grads = compare_gradients(got, j.ref("retained_grads"), j.tolerance, j.grad_labels)
    return _labelled(grads, "backward through the kept graph").as_kind("gradients")


JUDGES: dict[str, Callable[[JudgeInput], Outcome]] = {
    "gradients": gradients,
    "requires_grad": lambda j: _flag(j, "requires_grad"),
    "is_leaf": lambda j: _flag(j, "is_leaf"),
    "grad_accumulates": grad_accumulates,
    "purity": purity,
    "no_graph": no_graph,
    "determinism": determinism,
    "gradcheck": gradcheck,
    "efficiency": efficiency,
    "retain_graph": retain_graph,
    "saved_tensors": saved_tensors,
    "input_reads": input_reads,
    "fresh_output": fresh_output,
    "graph_nodes": graph_nodes,
}

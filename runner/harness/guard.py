"""Run-time watch over student code inside the child: forbidden operations and graph recording.

Three layers, because a forbidden function has many names:
- a TorchFunctionMode refuses torch functions and Tensor methods by identity;
- pure-Python callables (e.g. `torch.func.grad`) are replaced on their module
  by a refusing wrapper while the guard is installed;
- a TorchDispatchMode refuses the aten operators behind the forbidden names,
  which is where aliases meet: `torch._softmax`, `torch.ops.aten._softmax`,
  `F.softmax` under `DisableTorchFunction` and `torch.special.expit` all
  arrive as the same operator.
Every hit is recorded even if the student catches the exception. The static
check in the supervisor (`runner.harness.static`) backs all of this up.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Callable, Iterator
from typing import Any

from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from runner.harness import pristine
from runner.harness.static import DIFFERENTIATION, with_namesakes

# The forbidden name that stands for complex numbers (the builtin, literals like 1j, and
# at run time any complex tensor).
COMPLEX = "builtins.complex"


class ForbiddenOperation(RuntimeError):
    """Raised in student code that calls an operation the question forbids."""


def operator_names(dotted: str) -> set[str]:
    """The aten operator names a forbidden dotted name stands for: `softmax`, `linalg_inv`."""
    parts = dotted.split(".")
    last = parts[-1].strip("_").lower()
    names = {last}
    if len(parts) >= 2 and parts[-2] in ("linalg", "special", "fft"):
        names.add(f"{parts[-2]}_{last}")
    return names


def _words(name: str) -> tuple[str, ...]:
    return tuple(word for word in name.lower().split("_") if word)


def names_operator(name: str, packet: str) -> bool:
    """Whether the aten operator `packet` is the operation `name` (an operator_names entry).

    The operator's name holds the name's words in a row: `_softmax`, `sigmoid_`,
    `native_batch_norm` and `linalg_inv_ex` are what softmax, sigmoid, batch_norm
    and linalg_inv run as; `cumsum` is not `sum`, nor `logsigmoid` `sigmoid`.
    """
    wanted, words = _words(name), _words(packet)
    width = len(wanted)
    return any(words[i : i + width] == wanted for i in range(len(words) - width + 1))


class _RefuseMode(TorchFunctionMode):
    def __init__(self, guard: Guard) -> None:
        super().__init__()
        self.guard = guard

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        name = self.guard.targets.get(id(func))
        if name is not None:
            self.guard.refuse(name)
        return func(*args, **(kwargs or {}))


class _OperatorWatch(TorchDispatchMode):  # type: ignore[no-untyped-call]  # torch's base is untyped
    """Refuses forbidden aten operators, whatever name they were reached by."""

    def __init__(self, guard: Guard) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # torch's base is untyped
        self.guard = guard

    def __torch_dispatch__(
        self,
        func: Any,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        name = self.guard.operator_target(func)
        if name is not None:
            self.guard.refuse(name)
        if self.guard.differentiated is not None and pristine.graph_task_id() != -1:
            # A backward pass run inside the answer's forward call, however it was started
            # (`torch.autograd.gradcheck` with a hook on its input, a distribution's entropy):
            # torch's derivative computes the forbidden operation (softmax from logsumexp's).
            self.guard.refuse(self.guard.differentiated)
        output = func(*args, **(kwargs or {}))
        if self.guard.refuses_complex:
            self.guard.refuse_complex([list(args), kwargs or {}, output])
        return output


class GraphProbe(TorchFunctionMode):
    """Notes whether autograd recorded history while active.

    Two witnesses: autograd's node counter (every node it creates takes a number),
    and any tensor with a grad_fn passing into or out of a torch call (the
    inputs matter too: `vmap(...)(x).detach()` shows its history only to the
    detach). A detach, or a computation under no_grad, records nothing.
    """

    def __init__(self) -> None:
        super().__init__()
        self.saw_history = False
        self.first_node = self.last_node = 0

    def __enter__(self) -> GraphProbe:
        self.first_node = pristine.autograd_sequence_nr()
        super().__enter__()  # type: ignore[no-untyped-call]  # torch's base is untyped
        return self

    def __exit__(self, *exc: object) -> None:
        self.last_node = pristine.autograd_sequence_nr()
        super().__exit__(*exc)  # type: ignore[no-untyped-call]  # torch's base is untyped

    @property
    def graph_recorded(self) -> bool:
        return self.saw_history or self.last_node != self.first_node

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        output = func(*args, **(kwargs or {}))
        if not self.saw_history:
            tensors = pristine.tensors_in([list(args), kwargs or {}, output])
            self.saw_history = any(pristine.grad_fn_of(t) is not None for t in tensors)
        return output


class Guard:
    """Knows the forbidden names, patches Python callables, and records hits."""

    def __init__(self, forbidden: list[str], *, audited: bool = False) -> None:
        self.audited = audited  # the interpreter's veto is armed for the answer (audit.py)
        self.hits: list[str] = []
        self.targets: dict[int, str] = {}
        self.patches: list[tuple[object, str, object]] = []
        self.operators: dict[str, str] = {}  # aten operator name -> forbidden name
        self._operator_cache: dict[Any, str | None] = {}
        # Forbidding builtins.complex forbids complex numbers, however they were made: a
        # complex tensor also comes from `torch.tensor((-1) ** 0.5)` or `linalg.eigvals`,
        # which no name gives away, so every operator's tensors are looked at.
        self.refuses_complex = COMPLEX in forbidden
        # The harness's own backward passes run under this watch: differentiating in the
        # answer where a derivative would compute a forbidden operation is refused by the
        # static check before the answer runs.
        for alias, name in with_namesakes(forbidden, derivatives=False).items():
            self._resolve(alias, name)
            for operator in operator_names(alias):
                self.operators.setdefault(operator, name)
        # The forbidden name that a backward pass inside the answer's forward call counts as
        # (the static check refuses differentiating by name; this catches every other way).
        self.differentiated = next(
            (
                name
                for alias, name in with_namesakes(forbidden).items()
                if alias in DIFFERENTIATION and name not in DIFFERENTIATION
            ),
            None,
        )

    def refuse(self, name: str) -> None:
        self.hits.append(name)
        raise ForbiddenOperation(f"{name} is not allowed in this question")

    def refuse_complex(self, value: Any) -> None:
        """Refuse as `builtins.complex` when the value holds a complex tensor."""
        if any(pristine.is_complex(t) for t in pristine.tensors_in(value)):
            self.refuse(COMPLEX)

    def operator_target(self, func: Any) -> str | None:
        """The forbidden name an aten operator overload stands for, or None."""
        if func not in self._operator_cache:
            overload_packet = pristine.getattr_(func, "overloadpacket", None)
            packet = str(pristine.getattr_(overload_packet, "__name__", ""))
            found = (
                forbidden
                for name, forbidden in self.operators.items()
                if names_operator(name, packet)
            )
            self._operator_cache[func] = next(found, None)
        return self._operator_cache[func]

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """Patch forbidden Python callables for the duration (restored afterwards)."""
        for owner, attribute, original in self.patches:
            wrapper = self._wrapper(f"{_name_of(owner)}.{attribute}", original)
            pristine.setattr_(owner, attribute, wrapper)
        try:
            yield
        finally:
            for owner, attribute, original in self.patches:
                pristine.setattr_(owner, attribute, original)

    @contextlib.contextmanager
    def watching(
        self, *, operators: bool = True, probe_graph: bool = False
    ) -> Iterator[GraphProbe | None]:
        """Refuse forbidden calls while student code runs; operators=False for backward passes.

        Backward formulas of allowed operations may use operators whose names a
        question forbids, so the operator check runs on forward calls only.
        With `probe_graph`, the GraphProbe watching the code is yielded.
        """
        with contextlib.ExitStack() as stack:
            probe = stack.enter_context(GraphProbe()) if probe_graph else None
            if self.targets:
                stack.enter_context(_RefuseMode(self))
            if operators and (self.operators or self.refuses_complex or self.differentiated):
                stack.enter_context(_OperatorWatch(self))
            yield probe

    def _resolve(self, alias: str, name: str) -> None:
        """Watch what `alias` names, reporting a hit as `name` (the forbidden name)."""
        owner, attribute, target = _lookup(alias)
        if target is None:
            return
        if isinstance(target, types.ModuleType):
            for attr in dir(target):
                value = pristine.getattr_(target, attr, None)
                if not attr.startswith("_") and callable(value):
                    self._add(target, attr, value, f"{name}.{attr}")
            return
        self._add(owner, attribute, target, name)

    def _add(self, owner: object, attribute: str, target: object, name: str) -> None:
        self.targets.setdefault(id(target), name)
        if isinstance(target, types.FunctionType) and owner is not None:
            self.patches.append((owner, attribute, target))

    def _wrapper(self, name: str, original: object) -> Callable[..., Any]:
        def refused(*args: Any, **kwargs: Any) -> Any:
            self.refuse(self.targets.get(id(original), name))

        return refused


def mode_stacks() -> tuple[list[object], list[object]]:
    """The torch function and dispatch modes active now, bottom first."""
    functions = [pristine.function_mode_at(i) for i in range(pristine.function_mode_depth())]
    dispatch = [pristine.dispatch_mode_at(i) for i in range(pristine.dispatch_mode_depth())]
    return functions, dispatch


def same_modes(before: tuple[list[object], list[object]]) -> bool:
    """Whether exactly the modes of `before` are active, the very same objects."""
    after = mode_stacks()
    return all(
        len(old) == len(new) and all(a is b for a, b in zip(old, new, strict=True))
        for old, new in zip(before, after, strict=True)
    )


def leftover_state(depths: tuple[int, int] = (0, 0)) -> str | None:
    """What global torch state student code left changed, restored where possible; or None.

    `depths` are the function and dispatch mode stacks' depths the harness itself had
    before the student code ran. A mode left above them (e.g. inside a suspended
    generator) would see the harness's own operations afterwards, so it is removed
    and the run reported.
    """
    problems = []
    while pristine.function_mode_depth() > depths[0]:
        pristine.pop_function_mode()
        problems.append("a torch function mode was left active")
    while pristine.dispatch_mode_depth() > depths[1]:
        pristine.pop_dispatch_mode(None)
        problems.append("a torch dispatch mode was left active")
    if not pristine.is_grad_enabled():
        pristine.set_grad_enabled(True)
        problems.append("gradient recording was left switched off")
    if pristine.is_inference_mode_enabled():
        problems.append("inference mode was left on")
    if pristine.get_default_dtype() != pristine.float32:
        pristine.set_default_dtype(pristine.float32)
        problems.append("the default dtype was left changed")
    problems.extend(_restore_switches())
    return "; ".join(dict.fromkeys(problems)) or None


def _restore_switches() -> list[str]:
    """Put back every process-wide switch an answer left flipped, naming each."""
    problems = []
    for name, read, write, started in pristine.switches:
        if read() != started:
            write(started)
            problems.append(f"the {name} setting was left changed")
    return problems


def _lookup(name: str) -> tuple[object, str, object]:
    """Resolve a dotted name (module path, then attributes); (None, '', None) if unknown."""
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj: object = pristine.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        owner: object = None
        for part in parts[split:]:
            owner, obj = obj, pristine.getattr_(obj, part, None)
            if obj is None:
                return None, "", None
        return owner, parts[-1], obj
    return None, "", None


def _name_of(owner: object) -> str:
    return str(pristine.getattr_(owner, "__name__", type(owner).__name__))

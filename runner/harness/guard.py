"""Run-time refusal of forbidden operations inside the child.

A TorchFunctionMode refuses torch functions and Tensor methods by identity;
pure-Python callables (e.g. `torch.func.grad`) are replaced on their module by
a refusing wrapper while the guard is installed. Every hit is recorded even if
the student catches the exception. This is feedback the student could tamper
with; the static AST check in the supervisor backs it up.
"""

from __future__ import annotations

import contextlib
import importlib
import types
from collections.abc import Callable, Iterator
from typing import Any

from torch.overrides import TorchFunctionMode

_import_module = importlib.import_module
_getattr = getattr
_setattr = setattr


class ForbiddenOperation(RuntimeError):
    """Raised in student code that calls an operation the question forbids."""


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


class Guard:
    """Knows the forbidden names, patches Python callables, and records hits."""

    def __init__(self, forbidden: list[str]) -> None:
        self.hits: list[str] = []
        self.targets: dict[int, str] = {}
        self.patches: list[tuple[object, str, object]] = []
        for name in forbidden:
            self._resolve(name)

    def refuse(self, name: str) -> None:
        self.hits.append(name)
        raise ForbiddenOperation(f"{name} is not allowed in this question")

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """Patch forbidden Python callables for the duration (restored afterwards)."""
        for owner, attribute, original in self.patches:
            _setattr(owner, attribute, self._wrapper(f"{_name_of(owner)}.{attribute}", original))
        try:
            yield
        finally:
            for owner, attribute, original in self.patches:
                _setattr(owner, attribute, original)

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        """Refuse forbidden torch functions while student code runs."""
        if not self.targets:
            yield
            return
        with _RefuseMode(self):
            yield

    def _resolve(self, name: str) -> None:
        owner, attribute, target = _lookup(name)
        if target is None:
            return
        if isinstance(target, types.ModuleType):
            for attr in dir(target):
                value = _getattr(target, attr, None)
                if not attr.startswith("_") and callable(value):
                    self._add(target, attr, value, f"{name}.{attr}")
            return
        self._add(owner, attribute, target, name)

    def _add(self, owner: object, attribute: str, target: object, name: str) -> None:
        self.targets[id(target)] = name
        if isinstance(target, types.FunctionType) and owner is not None:
            self.patches.append((owner, attribute, target))

    def _wrapper(self, name: str, original: object) -> Callable[..., Any]:
        def refused(*args: Any, **kwargs: Any) -> Any:
            self.refuse(self.targets.get(id(original), name))

        return refused


def _lookup(name: str) -> tuple[object, str, object]:
    """Resolve a dotted name (module path, then attributes); (None, '', None) if unknown."""
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj: object = _import_module(".".join(parts[:split]))
        except ImportError:
            continue
        owner: object = None
        for part in parts[split:]:
            owner, obj = obj, _getattr(obj, part, None)
            if obj is None:
                return None, "", None
        return owner, parts[-1], obj
    return None, "", None


def _name_of(owner: object) -> str:
    return str(_getattr(owner, "__name__", type(owner).__name__))

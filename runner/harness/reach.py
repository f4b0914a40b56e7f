"""What the names an answer uses really reach, found by importing them in the supervisor.

The static look (`runner.harness.static`) sees names; allowed modules hand out
others under names of their own (`torch.nn.functional.np` is numpy,
`torch.xpu.c_void_p` is ctypes' raw pointer,
`torch.serialization.load` is `torch.load`, `torch.nn.modules.activation.torch.special.expit` is a
forbidden sigmoid). The supervisor resolves each dotted name the answer
builds from its imports (it imports only modules the policy allows, and
never runs the answer) and refuses a name that reaches a refused module or
function, or one of the question's forbidden functions.
"""

from __future__ import annotations

import functools
import importlib
import types
from typing import Any

from runner.harness.static import (
    ALLOWED_IMPORTS,
    ALLOWED_TORCH_C_NAMES,
    ALLOWED_TORCH_MODULES,
    DANGEROUS_MODULES,
    REFUSED_PATHS,
    Usage,
    stands_for,
    with_namesakes,
)

_MISSING = object()


def _within(name: str, paths: tuple[str, ...] | list[str]) -> bool:
    return any(name == path or name.startswith(path + ".") for path in paths)


def _private(name: str) -> bool:
    return any(part.startswith("_") and not part.endswith("__") for part in name.split("."))


def _resolve(dotted: str) -> list[tuple[str, Any]]:
    """Each prefix of `dotted` and what it may name, as far as it resolves.

    A prefix may name two things: the attribute (`torch.ao.quantization.quantize` is a
    function) and the module of that dotted name, which `from ... import` reaches
    (`from torch.ao.quantization.quantize import typing_extensions`): both are listed.
    """
    parts = dotted.split(".")
    try:
        current: list[Any] = [importlib.import_module(parts[0])]
    except ImportError:
        return []
    found = [(parts[0], current[0])]
    for index, part in enumerate(parts[1:], start=1):
        prefix = ".".join(parts[: index + 1])
        values = [
            value for obj in current if (value := getattr(obj, part, _MISSING)) is not _MISSING
        ]
        if any(isinstance(obj, types.ModuleType) for obj in current):
            module = _module_named(prefix)
            if module is not None and all(module is not value for value in values):
                values.append(module)
        if not values:
            return found
        found += [(prefix, value) for value in values]
        current = values
    return found


@functools.lru_cache(maxsize=4096)
def _module_named(name: str) -> types.ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _value_of(dotted: str) -> Any:
    """What the expression `dotted` evaluates to: attributes first, as Python reads them
    (`torch.autograd.gradcheck` is a function, though a module has that name too)."""
    parts = dotted.split(".")
    value: Any = _module_named(parts[0])
    for index, part in enumerate(parts[1:], start=1):
        if value is None:
            return None
        found = getattr(value, part, _MISSING)
        if found is _MISSING and isinstance(value, types.ModuleType):
            found = _module_named(".".join(parts[: index + 1]))  # import a.b binds a.b
        value = None if found is _MISSING else found
    return value


def _named(dotted: str) -> list[Any]:
    """What `dotted` itself may name (see `_resolve`)."""
    return [value for prefix, value in _resolve(dotted) if prefix == dotted]


@functools.lru_cache(maxsize=1)
def _refused_objects() -> dict[int, str]:
    return {id(value): path for path in REFUSED_PATHS for value in _named(path)}


@functools.lru_cache(maxsize=1)
def _torch_machinery() -> tuple[dict[int, str], tuple[type, ...]]:
    """The C extension's public names other than ALLOWED_TORCH_C_NAMES (by identity), and
    the storage classes."""
    torch = importlib.import_module("torch")
    refused = {
        id(value): f"torch.{name}"
        for name, value in vars(torch._C).items()
        if not name.startswith("_")
        and name not in ALLOWED_TORCH_C_NAMES
        and not isinstance(value, types.ModuleType)
    }
    storages = (torch.UntypedStorage, torch.storage.TypedStorage, torch._C.StorageBase)
    return refused, storages


def _torch_problem(value: Any) -> str | None:
    refused, storages = _torch_machinery()
    if id(value) in refused:
        return f"torch's C machinery: {refused[id(value)]}"
    if isinstance(value, type) and issubclass(value, storages):
        return f"the storage class {value.__name__}"
    return None


def _module_problem(module: types.ModuleType) -> str | None:
    name = str(getattr(module, "__name__", ""))
    top = name.split(".")[0]
    if top not in ALLOWED_IMPORTS or top in DANGEROUS_MODULES:
        return f"the module {name}"
    if _within(name, REFUSED_PATHS) or _private(name):
        return f"the module {name}"
    if top == "torch" and name != "torch" and not _within(name, ALLOWED_TORCH_MODULES):
        return f"the module {name}"
    return None


# The C halves of allowed modules: `functools.reduce` is `_functools.reduce`.
_ACCELERATORS = frozenset({"_operator", "_heapq", "_bisect", "_functools", "_collections"})


def _object_problem(value: Any) -> str | None:
    if isinstance(value, types.ModuleType):
        return _module_problem(value)
    if isinstance(value, type) and issubclass(value, type):
        # Called with a name, bases and a dict, a metaclass builds a class with any methods
        # (`abc.ABCMeta("A", (), {"__del__": f})`), as the refused `type` would.
        return f"the metaclass {value.__module__}.{value.__qualname__}"
    refused = _refused_objects().get(id(value)) or _torch_problem(value)
    if refused is not None:
        return refused
    owner = getattr(value, "__module__", None)
    if not (isinstance(owner, str) and owner and callable(value)):
        return None
    top = owner.split(".")[0]
    if _within(owner, REFUSED_PATHS) or top in DANGEROUS_MODULES - {"builtins"}:
        return f"a function of {owner}"
    if top == "builtins":
        # Plain types (a module's `Kwargs = dict`) are harmless; builtin functions are the
        # ones an answer may not name (`open`, `eval`...), however a module hands them out.
        return None if isinstance(value, type) else f"the builtin {getattr(value, '__name__', '')}"
    if top not in ALLOWED_IMPORTS and top not in _ACCELERATORS:
        # A module's import of another by name: torch.xpu holds ctypes' `c_void_p`.
        return f"a function of {owner}"
    return None


@functools.cache
def _torch_private_names() -> frozenset[str]:
    """The private attributes of the torch objects an answer's `self`, `cls` or `ctx` may be
    (a tensor handed to a method, its storage, a module, an autograd context): `_typed_storage`,
    `_resize_`, `_make_subclass` reach what the public names' refusals keep out."""
    import torch
    import torch.autograd.function

    owners = (
        torch.Tensor,
        torch._C.TensorBase,
        torch.nn.Parameter,
        torch.nn.Module,
        torch.autograd.function.FunctionCtx,
        torch.autograd.function.BackwardCFunction,
        torch.optim.Optimizer,
        torch.Generator,
        torch.TypedStorage,
        torch.UntypedStorage,
    )
    return frozenset(
        name
        for owner in owners
        for name in dir(owner)
        if name.startswith("_") and not name.endswith("__")
    )


def reached_refusals(usage: Usage) -> list[str]:
    """What the answer's names reach that graded answers may not use, sorted."""
    found = {
        f"the module {dotted} used as a value"
        for dotted in usage.escaped
        if isinstance(_value_of(dotted), types.ModuleType)
    }
    found |= {
        f"torch's private attribute {name} (line {line})"
        for name, line in usage.private_on_self.items()
        if name in _torch_private_names()
    }
    for dotted in sorted(usage.qualified):
        for prefix, value in _resolve(dotted):
            problem = _object_problem(value)
            if problem is not None:
                found.add(
                    problem if problem.endswith(prefix) else f"{problem} (reached as {prefix})"
                )
                break
    return sorted(found)


def reached_forbidden(usage: Usage, forbidden: list[str]) -> list[str]:
    """The question's forbidden functions the answer's names reach under other names."""
    targets: dict[int, tuple[str, str]] = {}
    for alias, name in with_namesakes(forbidden).items():
        for value in _named(alias):
            targets.setdefault(id(value), (alias, name))
    found = set()
    for dotted in usage.qualified:
        for prefix, value in _resolve(dotted):
            alias, target = targets.get(id(value), (prefix, prefix))
            if prefix != target:
                found.add(stands_for(alias, target, shown=prefix))
    return sorted(found)

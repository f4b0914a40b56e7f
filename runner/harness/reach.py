"""What the names an answer uses really reach, found by importing them in the supervisor.

The static look (`runner.harness.static`) sees names; allowed modules hand out
others under names of their own (`enum.bltns` is `builtins`,
`torch.nn.functional.np` is numpy, `torch.serialization.load` is
`torch.load`, `torch.nn.modules.activation.torch.special.expit` is a
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
    DANGEROUS_MODULES,
    REFUSED_PATHS,
    Usage,
    with_namesakes,
)

_MISSING = object()


def _within(name: str, paths: tuple[str, ...] | list[str]) -> bool:
    return any(name == path or name.startswith(path + ".") for path in paths)


def _private(name: str) -> bool:
    return any(part.startswith("_") and not part.endswith("__") for part in name.split("."))


def _resolve(dotted: str) -> list[tuple[str, Any]]:
    """Each prefix of `dotted` and the object it names, as far as it resolves."""
    parts = dotted.split(".")
    try:
        current: Any = importlib.import_module(parts[0])
    except ImportError:
        return []
    found = [(parts[0], current)]
    for index, part in enumerate(parts[1:], start=1):
        prefix = ".".join(parts[: index + 1])
        value = getattr(current, part, _MISSING)
        if value is _MISSING and isinstance(current, types.ModuleType):
            try:
                value = importlib.import_module(prefix)
            except ImportError:
                return found
        if value is _MISSING:
            return found
        found.append((prefix, value))
        current = value
    return found


@functools.lru_cache(maxsize=1)
def _refused_objects() -> dict[int, str]:
    objects = {}
    for path in REFUSED_PATHS:
        resolved = _resolve(path)
        if resolved and resolved[-1][0] == path:
            objects[id(resolved[-1][1])] = path
    return objects


def _module_problem(module: types.ModuleType) -> str | None:
    name = str(getattr(module, "__name__", ""))
    top = name.split(".")[0]
    if top not in ALLOWED_IMPORTS or top in DANGEROUS_MODULES:
        return f"the module {name}"
    if _within(name, REFUSED_PATHS) or _private(name):
        return f"the module {name}"
    return None


def _object_problem(value: Any) -> str | None:
    if isinstance(value, types.ModuleType):
        return _module_problem(value)
    refused = _refused_objects().get(id(value))
    if refused is not None:
        return refused
    owner = getattr(value, "__module__", None)
    if isinstance(owner, str) and owner and _within(owner, REFUSED_PATHS):
        return f"a function of {owner}"
    return None


def reached_refusals(usage: Usage) -> list[str]:
    """What the answer's names reach that graded answers may not use, sorted."""
    found = set()
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
    targets: dict[int, str] = {}
    for alias, name in with_namesakes(forbidden).items():
        resolved = _resolve(alias)
        if resolved and resolved[-1][0] == alias:
            targets.setdefault(id(resolved[-1][1]), name)
    found = set()
    for dotted in usage.qualified:
        for prefix, value in _resolve(dotted):
            target = targets.get(id(value))
            if target is not None and prefix != target:
                found.add(f"{prefix} (as {target})")
    return sorted(found)

"""The torch and builtin functions the harness captures at import live in one module.

An answer that rebinds `torch.Tensor.detach` or `getattr` must not change what the harness
calls; runner/harness/pristine.py captures each before any answer runs. A capture made
elsewhere would be a second list to keep in step, so a module-level alias of a torch
attribute or a builtin outside pristine.py fails here.
"""

import ast
import builtins
from pathlib import Path

RUNNER = Path(__file__).resolve().parents[2] / "runner"
BUILTIN_FUNCTIONS = {name for name in dir(builtins) if callable(getattr(builtins, name))}


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _captures(tree: ast.Module) -> list[tuple[int, str]]:
    found = []
    for statement in tree.body:
        value = statement.value if isinstance(statement, ast.Assign | ast.AnnAssign) else None
        if isinstance(value, ast.Attribute) and _root(value) == "torch":
            found.append((statement.lineno, ast.unparse(value)))
        elif isinstance(value, ast.Name) and value.id in BUILTIN_FUNCTIONS:
            found.append((statement.lineno, value.id))
    return found


def test_only_pristine_captures_torch_and_builtin_functions() -> None:
    elsewhere = [
        f"{path.relative_to(RUNNER.parent)}:{line}: {captured}"
        for path in sorted(RUNNER.rglob("*.py"))
        if path.name != "pristine.py" and "migrations" not in path.parts
        for line, captured in _captures(ast.parse(path.read_text(), str(path)))
    ]
    assert not elsewhere, "capture these in runner/harness/pristine.py instead:\n" + "\n".join(
        elsewhere
    )


def test_the_scan_finds_a_capture() -> None:
    tree = ast.parse("import torch\n_detach = torch.Tensor.detach\n_get = getattr\nX = 3\n")
    assert _captures(tree) == [(2, "torch.Tensor.detach"), (3, "getattr")]

"""Static look for forbidden names in an answer's source (supervisor side).

Resolves import aliases (`import torch as t`, `from torch.linalg import inv
as i`, `la = torch.linalg`), `getattr` with constant strings, `__import__`,
`importlib.import_module` and constant strings given to `eval`/`exec`. A
forbidden `torch.Tensor.NAME` matches any `.NAME` on an object of unknown
type. Dynamic tricks are left to the run-time guard in the child.
"""

from __future__ import annotations

import ast

_MAX_EVAL_DEPTH = 3


def find_forbidden(source: str, forbidden: list[str]) -> list[str]:
    """The forbidden names the source uses, sorted; [] for unparsable source."""
    if not forbidden:
        return []
    finder = _Finder(forbidden)
    finder.scan(source, 0)
    return sorted(finder.found)


class _Finder(ast.NodeVisitor):
    def __init__(self, forbidden: list[str]) -> None:
        self.forbidden = forbidden
        self.methods = {
            name.rsplit(".", 1)[1]: name for name in forbidden if name.startswith("torch.Tensor.")
        }
        self.aliases: dict[str, str] = {}
        self.found: set[str] = set()
        self.depth = 0

    def scan(self, source: str, depth: int) -> None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return
        saved, self.depth = self.depth, depth
        self.visit(tree)
        self.depth = saved

    def use(self, qualified: str) -> None:
        for name in self.forbidden:
            if qualified == name or qualified.startswith(name + "."):
                self.found.add(name)

    def resolve(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call):
            return self._resolve_call(node)
        return None

    def _resolve_call(self, node: ast.Call) -> str | None:
        function = node.func
        name = function.id if isinstance(function, ast.Name) else self.resolve(function)
        first = _constant_str(node.args[0]) if node.args else None
        if name == "getattr" and len(node.args) >= 2:
            base, attribute = self.resolve(node.args[0]), _constant_str(node.args[1])
            if base and attribute is None:
                self.use_prefix(base)
            return f"{base}.{attribute}" if base and attribute else None
        if name == "__import__" and first:
            return first if _has_fromlist(node) else first.split(".")[0]
        if name == "importlib.import_module" and first:
            return first
        return None

    def use_prefix(self, base: str) -> None:
        """A dynamic attribute of a module that holds a forbidden name counts as a use."""
        for name in self.forbidden:
            if name.startswith(base + "."):
                self.found.add(name)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.use(alias.name)
            if alias.asname:
                self.aliases[alias.asname] = alias.name
            else:
                top = alias.name.split(".")[0]
                self.aliases[top] = top

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module:
            return
        for alias in node.names:
            if alias.name == "*":
                self.use_prefix(node.module)
                continue
            qualified = f"{node.module}.{alias.name}"
            self.use(qualified)
            self.aliases[alias.asname or alias.name] = qualified

    def visit_Assign(self, node: ast.Assign) -> None:
        qualified = self.resolve(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                if qualified:
                    self.aliases[target.id] = qualified
                else:
                    self.aliases.pop(target.id, None)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        qualified = self.resolve(node)
        if qualified:
            self.use(qualified)
        elif node.attr in self.methods:
            self.found.add(self.methods[node.attr])
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        qualified = self.aliases.get(node.id)
        if qualified:
            self.use(qualified)

    def visit_Call(self, node: ast.Call) -> None:
        qualified = self._resolve_call(node)
        if qualified:
            self.use(qualified)
        function = node.func
        code = _constant_str(node.args[0]) if node.args else None
        is_eval = isinstance(function, ast.Name) and function.id in ("eval", "exec", "compile")
        if is_eval and code and self.depth < _MAX_EVAL_DEPTH:
            self.scan(code, self.depth + 1)
        self.generic_visit(node)


def _constant_str(node: ast.AST) -> str | None:
    """The value of a string built only from constants ("in" + "v", f"{'inv'}")."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _constant_str(node.left), _constant_str(node.right)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        parts = [
            _constant_str(v.value if isinstance(v, ast.FormattedValue) else v) for v in node.values
        ]
        return "".join(p for p in parts if p is not None) if None not in parts else None
    return None


def _has_fromlist(node: ast.Call) -> bool:
    fromlist = node.args[3] if len(node.args) > 3 else None
    for keyword in node.keywords:
        if keyword.arg == "fromlist":
            fromlist = keyword.value
    return isinstance(fromlist, ast.List | ast.Tuple) and bool(fromlist.elts)

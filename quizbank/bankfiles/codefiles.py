"""Checks of the Python files kept beside a question: reference, correct alternatives, wrong
solutions, generator."""

from __future__ import annotations

import ast

from runner.contract import CORRECT_FILE_RE, GENERATOR_FILE, REFERENCE_FILE, WRONG_FILE_RE

_SOLUTION_KINDS = ("reference", "correct", "wrong")
NOT_A_FILE_NAME = (
    "not a file a code question may hold: use reference.py, correct_<name>.py, "
    "wrong_<name>.py or generate.py (up to 100 letters, digits and _ in <name>)"
)


def file_kind(name: str) -> str | None:
    """The CodeFile kind a file name stands for, or None if the name is not allowed."""
    if name == REFERENCE_FILE:
        return "reference"
    if name == GENERATOR_FILE:
        return "generator"
    if WRONG_FILE_RE.fullmatch(name):
        return "wrong"
    if CORRECT_FILE_RE.fullmatch(name):
        return "correct"
    return None


def parse_python(source: str, filename: str = "<unknown>") -> ast.Module:
    """`source`'s syntax tree; SyntaxError also for source nested too deeply for the parser
    (which raises RecursionError or MemoryError on it)."""
    try:
        return ast.parse(source, filename=filename)
    except (RecursionError, MemoryError) as exc:
        raise SyntaxError("it is nested too deeply to be read") from exc


def check_python(name: str, source: str, *, defines: str | None) -> tuple[int, str] | None:
    """(line, message) when `source` does not parse or does not define `defines`."""
    try:
        tree = parse_python(source, filename=name)
    except SyntaxError as exc:
        return exc.lineno or 1, f"is not valid Python: {exc.msg}"
    if defines is None or defines in _top_level_names(tree):
        return None
    return 1, f"must define {defines} at the top level"


def _top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return names


def missing_files(qtype: str, names: list[str]) -> list[str]:
    """What a question of `qtype` lacks or must not have, given its file names."""
    problems = []
    if qtype == "code":
        if REFERENCE_FILE not in names:
            problems.append("a code question needs reference.py")
        if not any(file_kind(name) == "wrong" for name in names):
            problems.append("a code question needs at least one wrong_<name>.py")
    elif any(file_kind(name) in _SOLUTION_KINDS for name in names):
        problems.append("only code questions have reference.py, correct_*.py and wrong_*.py files")
    return problems

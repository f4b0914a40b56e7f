"""CodeRunner python3 questions in Moodle XML, to and from the bank's code questions.

A CodeRunner test prints and compares text; a bank case calls the entry point and compares
the result with the reference's. A test `print(f(literal, ...))` maps onto a case calling
`f` with those arguments; any other test (stdin, statements, a bare call that prints) is
reported, and so are other languages, prototypes, custom templates and UI plugins."""

from __future__ import annotations

import ast
from typing import Any
from xml.etree.ElementTree import Element

from quizbank.bankfiles.codefiles import parse_python
from quizbank.interchange.common import to_float
from quizbank.interchange.report import Unsupported

WRONG_FILE = "wrong_returns_none.py"


def _field(element: Element, tag: str) -> str:
    return (element.findtext(tag) or "").strip()


def read_coderunner(element: Element, content: dict[str, Any], notes: list[str]) -> None:
    """Fill `content` as a code question from a CodeRunner question, or raise Unsupported."""
    language = _field(element, "coderunnertype")
    if _field(element, "prototypetype") not in ("", "0"):
        raise Unsupported(f"a CodeRunner prototype ({language}), not a question")
    if language != "python3":
        raise Unsupported(f"CodeRunner {language or 'untyped'} questions: only python3 maps")
    if _field(element, "template"):
        raise Unsupported("a customised CodeRunner template decides the grade")
    if _field(element, "uiplugin") not in ("", "ace"):
        raise Unsupported(f"the CodeRunner UI plugin {_field(element, 'uiplugin')} is not Python")
    tests = element.findall("testcases/testcase")
    if not tests:
        raise Unsupported("a CodeRunner question without test cases")
    calls = [_call(test, number) for number, test in enumerate(tests, start=1)]
    entry_points = {name for name, _ in calls}
    if len(entry_points) != 1:
        raise Unsupported(f"the tests call several functions: {', '.join(sorted(entry_points))}")
    entry_point = entry_points.pop()
    _check_returns(element.findtext("answer") or "", entry_point)
    content.update(type="code", entry_point=entry_point)
    content["cases"] = [
        _case(test, number, args)
        for number, (test, (_, args)) in enumerate(zip(tests, calls, strict=True), start=1)
    ]
    content["files"] = {
        "reference.py": element.findtext("answer") or "",
        WRONG_FILE: _wrong(entry_point),
    }
    preload = element.findtext("answerpreload") or ""
    if preload.strip():
        content["starter_code"] = preload
    _limits(element, content)
    notes.append(
        f"expected outputs dropped: each case compares {entry_point}'s result with the "
        f"reference's; {WRONG_FILE} added as the known-wrong solution"
    )


def _check_returns(answer: str, entry_point: str) -> None:
    """Unsupported when the sample answer's `entry_point` returns nothing: its tests grade
    what it prints, while a bank case grades what it returns, so every solution, right or
    wrong, would score the same. (An answer that does not parse is reported by the bank's
    own checks.)"""
    try:
        tree = parse_python(answer)
    except SyntaxError:
        return
    functions = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == entry_point
    ]
    if not functions:
        return
    returns = [
        node
        for node in ast.walk(functions[-1])
        if isinstance(node, ast.Return | ast.Yield | ast.YieldFrom)
        and getattr(node, "value", None) is not None
    ]
    if not returns:
        raise Unsupported(
            f"the answer's {entry_point} returns nothing (it prints): the bank grades what "
            "a function returns, so this question could never be graded"
        )


def _call(test: Element, number: int) -> tuple[str, list[Any]]:
    """`print(f(1, 'a'))` -> ("f", [1, "a"]); Unsupported for any other test."""
    if (test.findtext("stdin/text") or "").strip():
        raise Unsupported(f"test {number} reads standard input")
    code = (test.findtext("testcode/text") or "").strip()
    try:
        tree = parse_python(code)
    except SyntaxError as exc:
        raise Unsupported(f"test {number} is not valid Python: {exc.msg}") from exc
    printed = _printed_call(tree)
    if printed is None:
        raise Unsupported(
            f"test {number} ({code[:60]!r}) is not print(f(...)) with literal arguments"
        )
    return printed


def _printed_call(tree: ast.Module) -> tuple[str, list[Any]] | None:
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    outer = tree.body[0].value
    if not (isinstance(outer, ast.Call) and isinstance(outer.func, ast.Name)):
        return None
    if outer.func.id != "print" or len(outer.args) != 1 or outer.keywords:
        return None
    inner = outer.args[0]
    if not isinstance(inner, ast.Call) or not isinstance(inner.func, ast.Name) or inner.keywords:
        return None
    try:
        args = [_plain(ast.literal_eval(arg)) for arg in inner.args]
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return inner.func.id, args


def _plain(value: Any) -> Any:
    """A literal as a bank value: tuples become lists; sets, bytes and complex are refused."""
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {key: _plain(item) for key, item in value.items()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise ValueError("not a bank value")


def _case(test: Element, number: int, args: list[Any]) -> dict[str, Any]:
    case: dict[str, Any] = {"name": f"test {number}", "args": args}
    weight = to_float(test.get("mark", "1"), "test mark")
    if weight != 1:
        case["weight"] = weight
    if (test.findtext("display/text") or "SHOW").strip().upper() == "HIDE":
        case["hidden"] = True
    return case


def _wrong(entry_point: str) -> str:
    return (
        "# Mistake: returns nothing (made by the Moodle import, which brings no wrong answers).\n"
        f"def {entry_point}(*args, **kwargs):\n    return None\n"
    )


def _limits(element: Element, content: dict[str, Any]) -> None:
    limits: dict[str, Any] = {}
    if _field(element, "cputimelimitsecs"):
        limits["time_s"] = to_float(_field(element, "cputimelimitsecs"), "cputimelimitsecs")
    if _field(element, "memlimitmb"):
        limits["memory_mb"] = int(to_float(_field(element, "memlimitmb"), "memlimitmb"))
    if limits:
        content["limits"] = limits

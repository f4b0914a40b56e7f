"""YAML reading that remembers the line of every value, so errors can point at it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

FieldPath = tuple[str | int, ...]


@dataclass(frozen=True)
class Issue:
    """One problem in a file: the field it concerns and what is wrong."""

    path: FieldPath
    message: str


def field_name(path: FieldPath) -> str:
    """`("choices", 1, "correct")` -> `choices[1].correct`; the whole file is `(file)`."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "(file)"


@dataclass
class SourceMap:
    """Line numbers (1-based) of the fields of one YAML document."""

    lines: dict[FieldPath, int] = field(default_factory=dict)

    def line(self, path: FieldPath) -> int:
        # A missing field is reported at its nearest parent that exists.
        while path and path not in self.lines:
            path = path[:-1]
        return self.lines.get(path, 1)


@dataclass
class LoadedYaml:
    data: Any
    source: SourceMap
    issues: list[Issue]


class YamlSyntaxError(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


class NotText(Exception):
    """A bank file that is not UTF-8 text; `line` is where the first byte that is not is."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def read_text(path: Path) -> str:
    """The file's text, newlines read as text mode reads them; raises NotText for bytes that
    are not UTF-8 (a file saved as Latin-1 or UTF-16)."""
    return utf8_text(path.read_bytes()).replace("\r\n", "\n").replace("\r", "\n")


def utf8_text(data: bytes) -> str:
    """`data` decoded as UTF-8; raises NotText, naming the line of the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        byte = f"byte 0x{data[exc.start]:02x}, {exc.reason}"
        raise NotText(line, f"is not UTF-8 text ({byte}); save it as UTF-8") from exc


def load_yaml(text: str) -> LoadedYaml:
    """Parse one YAML document, keeping line numbers; raise YamlSyntaxError if unreadable."""
    try:
        _refuse_hostile_structure(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.load(text, Loader=_BankLoader)  # noqa: S506  (a SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        raise YamlSyntaxError(line, f"not valid YAML: {exc.problem or exc.context}") from exc
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(1, f"not valid YAML: {exc}") from exc
    except ValueError as exc:  # an integer of thousands of digits, past Python's limit
        raise YamlSyntaxError(1, f"not a value this bank can hold: {exc}") from exc
    source = SourceMap()
    issues: list[Issue] = []
    if node is not None:
        _walk(node, (), source, issues)
    return LoadedYaml(data=data, source=source, issues=issues)


# Deeper than any question needs; a deeper file would exhaust the parser's recursion.
MAX_DEPTH = 50


def _refuse_hostile_structure(text: str) -> None:
    """A bank file needs no anchors, and an alias of an alias of ... expands exponentially
    when walked or written out (a "billion laughs"); nor does it nest 50 levels deep. Both
    are refused from the parser's events, before anything is built."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        line = event.start_mark.line + 1 if event.start_mark else 1
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise YamlSyntaxError(line, "anchors and aliases (&name, *name) are not allowed")
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise YamlSyntaxError(line, f"nested more than {MAX_DEPTH} levels deep")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


_TEXT_TAG = "tag:yaml.org,2002:str"
_DATE_TAG = "tag:yaml.org,2002:timestamp"


class _BankLoader(yaml.SafeLoader):
    """SafeLoader, but an impossible date (2026-13-45) stays text: `_walk` reports it at its
    field and line, where PyYAML would fail the whole file at line 1."""

    def construct_yaml_timestamp(self, node: yaml.ScalarNode) -> object:  # type: ignore[override]
        try:
            return super().construct_yaml_timestamp(node)
        except ValueError:
            return self.construct_scalar(node)


_BankLoader.add_constructor(_DATE_TAG, _BankLoader.construct_yaml_timestamp)


def _date_problem(node: yaml.ScalarNode) -> str | None:
    try:
        yaml.SafeLoader("").construct_yaml_timestamp(node)
    except ValueError as error:
        return f"is not a real date ({error}); put it in quotes if it is text"
    return None


def _walk(node: yaml.Node, path: FieldPath, source: SourceMap, issues: list[Issue]) -> None:
    source.lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            child = (*path, key)
            if key in seen:
                issues.append(Issue(child, "this key appears twice"))
            elif key_node.tag != _TEXT_TAG:  # 1, yes, ~: YAML reads a number, true, null
                issues.append(Issue(child, f"a key must be text; write it in quotes: '{key}'"))
            seen.add(key)
            source.lines[child] = key_node.start_mark.line + 1
            _walk(value_node, child, source, issues)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), source, issues)
    elif isinstance(node, yaml.ScalarNode) and node.tag == _DATE_TAG:
        problem = _date_problem(node)
        if problem:
            issues.append(Issue(path, problem))

"""Writing canonical bank files: key order as in the doc, block text, short values in flow."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from quizbank.bankfiles import schema
from quizbank.bankfiles.bank import BankHeader
from quizbank.bankfiles.codefiles import NOT_A_FILE_NAME, file_kind
from quizbank.errors import ExportImpossible

_WIDTH = 100
# Containers that stay in block style whatever their size (as in docs/bank-format.md).
_BLOCK_LISTS = (
    "choices",
    "answers",
    "cases",
    "rubric",
    "levels",
    "args",
    "stages",
    "topics",
    "objectives",
)
_BLOCK_MAPPINGS = ("kwargs",)
_TOP_BLOCK_MAPPINGS = ("course", "limits", "compare", "efficiency")
_ITEM_BLOCKS = ("choices", "answers", "cases", "rubric", "topics")


class _Flow(dict[str, Any]):
    pass


class _FlowList(list[Any]):
    pass


class _Dumper(yaml.SafeDumper):
    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        # Indent list items under their key, as the examples in the doc do.
        super().increase_indent(flow, False)

    def choose_scalar_style(self) -> str:
        # Double quotes as in the doc, except where backslashes (regexes) read better raw.
        style = str(super().choose_scalar_style())
        value = getattr(self.event, "value", "")
        return '"' if style == "'" and "\\" not in value else style


def _text(dumper: _Dumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _float(dumper: _Dumper, value: float) -> yaml.ScalarNode:
    if not math.isfinite(value):
        return dumper.represent_float(value)
    text = repr(value)
    if "e" in text:
        # 1e-05 -> 1.0e-5: YAML 1.1 needs the dot and the exponent's sign.
        mantissa, exponent = text.split("e")
        mantissa = mantissa if "." in mantissa else f"{mantissa}.0"
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa}e{sign}{exponent.lstrip('+-').lstrip('0') or '0'}"
    return dumper.represent_scalar("tag:yaml.org,2002:float", text)


def _flow_map(dumper: _Dumper, value: _Flow) -> yaml.MappingNode:
    return dumper.represent_mapping("tag:yaml.org,2002:map", value.items(), flow_style=True)


def _flow_list(dumper: _Dumper, value: _FlowList) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)


def _block_map(dumper: _Dumper, value: dict[str, Any]) -> yaml.MappingNode:
    return dumper.represent_mapping("tag:yaml.org,2002:map", value.items(), flow_style=False)


_Dumper.add_representer(str, _text)
_Dumper.add_representer(float, _float)
_Dumper.add_representer(_Flow, _flow_map)
_Dumper.add_representer(_FlowList, _flow_list)
_Dumper.add_representer(dict, _block_map)


def dump_yaml(data: dict[str, Any]) -> str:
    """Canonical YAML text of one question or bank.yaml dictionary."""
    styled = {key: _style(value, key, 0) for key, value in data.items()}
    return yaml.dump(
        styled, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=10**6, indent=2
    )


def _is_flat(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_is_flat(item) for item in value.values())
    if isinstance(value, list):
        return all(_is_flat(item) for item in value)
    return not (isinstance(value, str) and "\n" in value)


def _fits(value: Any, key: str, depth: int) -> bool:
    wrapped = _Flow(value) if isinstance(value, dict) else _FlowList(value)
    text = yaml.dump(wrapped, Dumper=_Dumper, allow_unicode=True, width=10**6).strip()
    label = 2 if key.endswith("[]") else len(key) + 2  # "- " or "key: "
    return 2 * depth + label + len(text) <= _WIDTH


def _style(value: Any, key: str, depth: int) -> Any:
    if not isinstance(value, dict | list):
        return value
    forced_block = (
        key in _BLOCK_LISTS
        or key in _BLOCK_MAPPINGS
        or key == "item"
        or (depth == 0 and key in _TOP_BLOCK_MAPPINGS)
    )
    if not forced_block and _is_flat(value) and _fits(value, key, depth):
        return _Flow(value) if isinstance(value, dict) else _FlowList(value)
    if isinstance(value, dict):
        return {name: _style(item, name, depth + 1) for name, item in value.items()}
    # The items of structural lists (choices, cases...) are block mappings themselves,
    # except short value-like items (args, levels, stages) that read best on one line.
    item_key = "item" if key in _ITEM_BLOCKS else key + "[]"
    return [_style(item, item_key, depth + 1) for item in value]


@dataclass(frozen=True)
class QuestionOut:
    topic: str
    slug: str
    content: dict[str, Any]
    # The bytes of the images in content["assets"], by sha256.
    images: dict[str, bytes] = field(default_factory=dict)


def bank_header_dict(header: BankHeader) -> dict[str, Any]:
    course = {"slug": header.slug, "title": header.title}
    if header.description:
        course["description"] = header.description
    topics = []
    for topic in header.topics:
        entry = {"slug": topic.slug, "title": topic.title}
        if topic.description:
            entry["description"] = topic.description
        topics.append(entry)
    return {"course": course, "topics": topics}


def write_bank(root: Path, header: BankHeader, questions: Iterable[QuestionOut]) -> int:
    """Write the bank layout under `root` (which must be empty); returns files written."""
    root.mkdir(parents=True, exist_ok=True)
    written = _write(root / schema.BANK_FILE, dump_yaml(bank_header_dict(header)))
    for topic in header.topics:
        (root / topic.slug).mkdir(exist_ok=True)
    for question in questions:
        content = dict(question.content)
        files: dict[str, str] = content.pop("files", {})
        assets: dict[str, str] = content.pop("assets", {})
        folder = root / question.topic
        if files or assets:
            folder = folder / question.slug
            folder.mkdir(parents=True, exist_ok=True)
            written += _write(folder / schema.QUESTION_FILE, dump_yaml(content))
            for name, source in files.items():
                if file_kind(name) is None:  # stored before the name was checked
                    raise ExportImpossible(
                        f"{question.slug}: the file {name[:80]!r} {NOT_A_FILE_NAME}"
                    )
                written += _write(folder / name, source)
            written += _write_images(folder / schema.ASSETS_FOLDER, assets, question.images)
        else:
            folder.mkdir(parents=True, exist_ok=True)
            written += _write(folder / f"{question.slug}.yaml", dump_yaml(content))
    return written


def _write_images(folder: Path, assets: dict[str, str], images: dict[str, bytes]) -> int:
    for name, digest in assets.items():
        folder.mkdir(exist_ok=True)
        (folder / name).write_bytes(images[digest])
    return len(assets)


def _write(path: Path, text: str) -> int:
    path.write_text(text, encoding="utf-8", newline="\n")
    return 1

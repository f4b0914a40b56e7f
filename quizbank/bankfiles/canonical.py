"""The canonical form of a question: defaults omitted, text normalised, keys in file order.

Import, the admin and export all pass content through `canonicalize`, so the
same question always has the same dictionary and therefore the same hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from quizbank.bankfiles import schema
from runner import contract

_DEFAULTS: dict[str, Any] = {
    "difficulty": "beginner",
    "points": 1,
    "shuffle": True,
    "scoring": "all_or_nothing",
    "case_sensitive": False,
    "whitespace": "normalize",
    "device": "cpu",
}
_EMPTY: tuple[Any, ...] = ("", [], {}, None)
# Keys of nested mappings in file order: tensor and random values first as the runner lists
# them, then checks ({kind, upstream, expected}), stages ({check, tolerance}) and the rest.
_NESTED_ORDER = tuple(
    dict.fromkeys(
        (
            contract.TENSOR_KEYS[0],
            *contract.RANDOM_KEYS,
            *contract.TENSOR_KEYS,
            *("kind", "check", "upstream", "expected", "weight", "tolerance", "x", "y", "lr"),
        )
    )
)
_CASE_ORDER = tuple(dict.fromkeys((*contract.CALL_CASE_KEYS, *contract.TRAINING_CASE_KEYS)))


def canonical_text(value: object) -> str:
    """Unix newlines, no surrounding blank space; multi-line text ends with one newline."""
    text = str(value).replace("\r\n", "\n").replace("\r", "\n").strip()
    return f"{text}\n" if "\n" in text else text


def canonical_number(value: Any) -> int | float:
    """Whole numbers as int, others as float, as a float column gives them back."""
    number = float(value)
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def content_hash(content: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of a question's content."""
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def question_key_order(qtype: str) -> tuple[str, ...]:
    type_keys = tuple(key for key in schema.TYPE_KEYS.get(qtype, ()) if key != "mode")
    head = ("type", "title", "mode") if qtype == "viva" else ("type", "title")
    return (*head, *schema.COMMON_KEYS[2:], *type_keys, "files", "assets")


def canonicalize(data: dict[str, Any]) -> dict[str, Any]:
    """The canonical content of a valid question dictionary (YAML data plus `files` and
    `assets`)."""
    qtype = str(data.get("type"))
    out: dict[str, Any] = {}
    for key in question_key_order(qtype):
        if key not in data:
            continue
        convert = _ANSWER_CONVERTERS.get(qtype) if key == "answers" else _CONVERTERS.get(key)
        value = convert(data[key]) if convert else data[key]
        if value in _EMPTY or (key in _DEFAULTS and value == _DEFAULTS[key]):
            continue
        out[key] = value
    return out


def ordered(value: Any, order: tuple[str, ...] = _NESTED_ORDER) -> Any:
    """Mappings with known keys first (in `order`), the rest alphabetically, recursively."""
    if isinstance(value, list):
        return [ordered(item) for item in value]
    if not isinstance(value, dict):
        return value
    rank = {key: index for index, key in enumerate(order)}
    keys = sorted(value, key=lambda key: (rank.get(key, len(rank)), key))
    return {key: ordered(value[key]) for key in keys}


def _pick(
    source: dict[str, Any], convert: Mapping[str, Callable[[Any], Any]], defaults: dict[str, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, fn in convert.items():
        if key in source and source[key] not in _EMPTY:
            value = fn(source[key])
            if key not in defaults or value != defaults[key]:
                out[key] = value
    return out


def _number_or_param(value: Any) -> int | float | str:
    return value if isinstance(value, str) else canonical_number(value)


def _same(value: Any) -> Any:
    return value


def _stripped_list(value: Any) -> list[Any]:
    return [canonical_text(item) for item in value] if isinstance(value, list) else value


def _choices(value: list[dict[str, Any]]) -> list[dict[str, Any]]:
    convert: dict[str, Callable[[Any], Any]] = {
        "text": canonical_text,
        "correct": bool,
        "feedback": canonical_text,
    }
    return [_pick(item, convert, {"correct": False}) for item in value]


def _numeric_answers(value: list[dict[str, Any]]) -> list[dict[str, Any]]:
    convert: dict[str, Callable[[Any], Any]] = {
        "value": _number_or_param,
        "tolerance": canonical_number,
        "tolerance_mode": str,
        "fraction": canonical_number,
        "feedback": canonical_text,
    }
    defaults = {"tolerance": 0, "tolerance_mode": "absolute", "fraction": 1}
    return [_pick(item, convert, defaults) for item in value]


def _text_answers(value: list[dict[str, Any]]) -> list[dict[str, Any]]:
    convert = {
        "text": canonical_text,
        "regex": canonical_text,
        "fraction": canonical_number,
        "feedback": canonical_text,
    }
    return [_pick(item, convert, {"fraction": 1}) for item in value]


def _cases(value: list[dict[str, Any]]) -> list[dict[str, Any]]:
    cases = []
    for item in value:
        case = ordered(item, _CASE_ORDER)
        case["name"] = canonical_text(case.get("name", ""))
        if "weight" in case:
            case["weight"] = canonical_number(case["weight"])
        for key, default in (("kind", "call"), ("weight", 1), ("hidden", False)):
            if case.get(key) == default:
                del case[key]
        cases.append(case)
    return cases


def _rubric(value: list[dict[str, Any]]) -> list[dict[str, Any]]:
    level = {"label": canonical_text, "points": canonical_number, "descriptor": canonical_text}
    criteria = []
    for item in value:
        criterion = _pick(item, {"criterion": canonical_text, "description": canonical_text}, {})
        criterion["levels"] = [_pick(entry, level, {}) for entry in item.get("levels", [])]
        criteria.append(criterion)
    return criteria


def _keyed(order: tuple[str, ...]) -> Callable[[Any], Any]:
    return lambda value: ordered(value, order) if isinstance(value, dict) else value


def _files(value: dict[str, str]) -> dict[str, str]:
    return {name: canonical_text(value[name]) for name in sorted(value)}


def _assets(value: dict[str, str]) -> dict[str, str]:
    return {name: value[name] for name in sorted(value)}


_TEXT_KEYS = (
    "title",
    "prompt",
    "general_feedback",
    "true_feedback",
    "false_feedback",
    "unit",
    "entry_point",
    "starter_code",
    "model_answer",
    "guidance",
    "mode",
)
_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    **dict.fromkeys(_TEXT_KEYS, canonical_text),
    "tags": _stripped_list,
    "objectives": _stripped_list,
    "forbidden": _stripped_list,
    "points": canonical_number,
    "choices": _choices,
    "cases": _cases,
    "rubric": _rubric,
    "limits": _keyed(contract.LIMIT_KEYS),
    "compare": _keyed(contract.COMPARE_KEYS),
    "efficiency": _keyed(contract.EFFICIENCY_KEYS),
    "files": _files,
    "assets": _assets,
    "answer": _same,
}
_ANSWER_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "numeric": _numeric_answers,
    "short_text": _text_answers,
}

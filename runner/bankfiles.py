"""Code questions read straight from a bank folder (docs/bank-format.md, "code").

The runner must not import quizbank, so `runner_check` reads question.yaml,
reference.py, correct_*.py and wrong_*.py itself. Errors name the file, the line and the
field, e.g. `bank/t/q/question.yaml:14 cases[1].args[0].dtype: unknown dtype`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from runner.api import CompareSettings, Device, GradingJob, Limits
from runner.harness.spec import COMPARE_KEYS_ALL, parse_cases, parse_compare
from runner.harness.spec_values import CaseError, format_path, is_number

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_EFFICIENCY_KEYS = ("max_time_ratio", "max_memory_ratio")
_LIMIT_KEYS = {"time_s": float, "memory_mb": int, "output_kb": int}


class BankFileError(ValueError):
    """A code question's files are invalid; the message says file:line field: problem."""


@dataclass(frozen=True)
class CodeQuestion:
    slug: str
    folder: Path
    entry_point: str
    reference_source: str
    correct_sources: dict[str, str]
    wrong_sources: dict[str, str]
    cases: list[dict[str, Any]]
    compare: CompareSettings
    device: Device
    limits: Limits
    forbidden: list[str]
    efficiency: dict[str, float]

    def job(self, source: str, job_id: str) -> GradingJob:
        """A GradingJob that grades `source` as an answer to this question."""
        return GradingJob(
            job_id=job_id,
            source=source,
            entry_point=self.entry_point,
            reference_source=self.reference_source,
            cases=self.cases,
            compare=self.compare,
            device=self.device,
            limits=self.limits,
            forbidden=self.forbidden,
            efficiency=self.efficiency,
        )


def find_question_files(bank: Path) -> list[Path]:
    """Every `TOPIC/SLUG/question.yaml` in the bank, sorted."""
    return sorted(bank.glob("*/*/question.yaml"))


def load_code_questions(bank: Path) -> tuple[list[CodeQuestion], list[str]]:
    """All code questions of a bank, and one error line per invalid question."""
    questions: list[CodeQuestion] = []
    errors: list[str] = []
    for path in find_question_files(bank):
        try:
            question = load_code_question(path)
        except BankFileError as error:
            errors.append(str(error))
            continue
        if question is not None:
            questions.append(question)
    return questions, errors


def load_code_question(path: Path) -> CodeQuestion | None:
    """The code question in `path` (a question.yaml), or None if it is another type."""
    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text)
        root = yaml.compose(text)
    except yaml.YAMLError as error:
        raise BankFileError(f"{path}: invalid YAML: {error}") from error
    if not isinstance(data, dict):
        raise BankFileError(f"{path}:1 the file must hold a mapping")
    if data.get("type") != "code":
        return None
    try:
        return _question(path, data)
    except CaseError as error:
        line = _line_of(root, error.path)
        raise BankFileError(f"{path}:{line} {format_path(error.path)}: {error.detail}") from error


def _question(path: Path, data: dict[str, Any]) -> CodeQuestion:
    folder = path.parent
    entry_point = data.get("entry_point")
    if not isinstance(entry_point, str) or not _IDENTIFIER.match(entry_point):
        raise CaseError(("entry_point",), "must be a Python identifier")
    reference = folder / "reference.py"
    if not reference.is_file():
        raise CaseError(("type",), f"a code question needs {reference.name} next to it")
    wrong = _sources(folder, "wrong_*.py")
    if not wrong:
        raise CaseError(("type",), "a code question needs at least one wrong_*.py")
    cases = data.get("cases")
    parse_cases(cases)
    compare = parse_compare(data.get("compare", {}), ("compare",), COMPARE_KEYS_ALL)
    return CodeQuestion(
        slug=folder.name,
        folder=folder,
        entry_point=entry_point,
        reference_source=reference.read_text(encoding="utf-8"),
        correct_sources=_sources(folder, "correct_*.py"),
        wrong_sources=wrong,
        cases=list(cases),  # type: ignore[arg-type]  # parse_cases checked it is a list
        compare=CompareSettings(**compare),
        device=_device(data.get("device", "cpu")),
        limits=_limits(data.get("limits", {})),
        forbidden=_forbidden(data.get("forbidden", [])),
        efficiency=_efficiency(data.get("efficiency", {})),
    )


def _sources(folder: Path, pattern: str) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob(pattern))}


def _device(raw: object) -> Device:
    if not isinstance(raw, str) or raw not in ("cpu", "cuda", "any"):
        raise CaseError(("device",), "must be cpu, cuda or any")
    return Device(raw)


def _limits(raw: object) -> Limits:
    if not isinstance(raw, dict):
        raise CaseError(("limits",), "must be a mapping")
    values: dict[str, Any] = {}
    for key, value in raw.items():
        kind = _LIMIT_KEYS.get(key)
        if kind is None:
            raise CaseError(
                ("limits", str(key)), f"unknown field; allowed: {', '.join(_LIMIT_KEYS)}"
            )
        if not is_number(value) or value <= 0:
            raise CaseError(("limits", key), "must be a positive number")
        values[key] = kind(value)
    return Limits(**values)


def _forbidden(raw: object) -> list[str]:
    if not isinstance(raw, list) or not all(isinstance(item, str) and item for item in raw):
        raise CaseError(("forbidden",), "must be a list of qualified names like torch.linalg.inv")
    return list(raw)


def _efficiency(raw: object) -> dict[str, float]:
    if not isinstance(raw, dict):
        raise CaseError(("efficiency",), "must be a mapping")
    for key, value in raw.items():
        if key not in _EFFICIENCY_KEYS:
            raise CaseError(
                ("efficiency", str(key)), f"unknown field; allowed: {', '.join(_EFFICIENCY_KEYS)}"
            )
        if not is_number(value) or value < 1:
            raise CaseError(("efficiency", key), "must be a number >= 1")
    return {key: float(value) for key, value in raw.items()}


def _line_of(root: yaml.Node | None, path: tuple[str | int, ...]) -> int:
    """The 1-based line of the deepest node of `path` that exists in the YAML."""
    node, line = root, 1
    for part in path:
        if node is None:
            break
        line = node.start_mark.line + 1
        node = _child(node, part)
    return node.start_mark.line + 1 if node is not None else line


def _child(node: yaml.Node, part: str | int) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == part:
                return value  # type: ignore[no-any-return]  # yaml nodes are untyped
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
        return node.value[part]  # type: ignore[no-any-return]  # yaml nodes are untyped
    return None

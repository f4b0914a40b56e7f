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

from runner.contract import (
    CORRECT_FILE_RE,
    GENERATOR_FILE,
    REFERENCE_FILE,
    WRONG_FILE_RE,
    CaseError,
    CodeQuestionSpec,
    format_path,
    parse_code_question,
)
from runner.types import GradingJob


class BankFileError(ValueError):
    """A code question's files are invalid; the message says file:line field: problem."""


@dataclass(frozen=True)
class CodeQuestion:
    slug: str
    folder: Path
    spec: CodeQuestionSpec
    reference_source: str
    correct_sources: dict[str, str]
    wrong_sources: dict[str, str]

    def job(self, source: str, job_id: str) -> GradingJob:
        """A GradingJob that grades `source` as an answer to this question."""
        return self.spec.job(job_id=job_id, source=source, reference_source=self.reference_source)


def find_question_files(folder: Path) -> list[Path]:
    """Every `TOPIC/SLUG/question.yaml` of a bank, sorted; a topic's `SLUG/question.yaml`
    when `folder` is a topic, or the one question when it is a question's folder."""
    if (folder / "question.yaml").is_file():
        return [folder / "question.yaml"]
    return sorted({*folder.glob("*/*/question.yaml"), *folder.glob("*/question.yaml")})


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
    spec = parse_code_question(data)
    reference = folder / REFERENCE_FILE
    if not reference.is_file():
        raise CaseError(("type",), f"a code question needs {reference.name} next to it")
    misnamed = [
        path.name
        for path in sorted(folder.glob("*.py"))
        if path.name not in (REFERENCE_FILE, GENERATOR_FILE)
        and not (CORRECT_FILE_RE.fullmatch(path.name) or WRONG_FILE_RE.fullmatch(path.name))
    ]
    if misnamed:
        names = ", ".join(misnamed)
        raise CaseError(("type",), f"{names}: not correct_<name>.py or wrong_<name>.py")
    wrong = _sources(folder, WRONG_FILE_RE)
    if not wrong:
        raise CaseError(("type",), "a code question needs at least one wrong_*.py")
    return CodeQuestion(
        slug=folder.name,
        folder=folder,
        spec=spec,
        reference_source=reference.read_text(encoding="utf-8"),
        correct_sources=_sources(folder, CORRECT_FILE_RE),
        wrong_sources=wrong,
    )


def _sources(folder: Path, names: re.Pattern[str]) -> dict[str, str]:
    paths = sorted(p for p in folder.glob("*.py") if names.fullmatch(p.name))
    return {p.name: p.read_text(encoding="utf-8") for p in paths}


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

"""The README's example of each question type is a valid question."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quizbank.bankfiles.questions import validate_question
from quizbank.bankfiles.schema import QUESTION_TYPES
from quizbank.bankfiles.source import load_yaml

README = Path(__file__).resolve().parents[2] / "README.md"
EXAMPLES = [
    block
    for block in re.findall(r"```yaml\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    if re.search(r"^type: ", block, re.M)
]


def test_the_readme_shows_every_question_type() -> None:
    types = {re.search(r"^type: (\w+)", block, re.M).group(1) for block in EXAMPLES}  # type: ignore[union-attr]
    assert types == set(QUESTION_TYPES)


@pytest.mark.parametrize("block", EXAMPLES, ids=lambda block: block.splitlines()[0])
def test_each_readme_example_is_a_valid_question(block: str) -> None:
    loaded = load_yaml(block)
    assert loaded.issues == []
    assert validate_question(loaded.data) == []

"""Fixtures for the bank tests: copies of the test banks in a temporary folder."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

BANKS = Path(__file__).parent / "banks"
FIXTURE_BANK = Path(__file__).resolve().parents[2] / "fixtures" / "banks" / "pytorch-fundamentals"


@pytest.fixture
def every_type_bank(tmp_path: Path) -> Path:
    """A writable copy of the bank with one question of every type."""
    target = tmp_path / "every-type"
    shutil.copytree(BANKS / "every-type", target)
    return target


@pytest.fixture
def small_bank(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Build a bank with one topic `t` from {relative path: text}."""

    def build(files: dict[str, str]) -> Path:
        root = tmp_path / "small"
        (root / "t").mkdir(parents=True)
        (root / "bank.yaml").write_text(
            "course:\n  slug: small\n  title: Small\ntopics:\n  - slug: t\n    title: T\n"
        )
        for name, text in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return root

    return build

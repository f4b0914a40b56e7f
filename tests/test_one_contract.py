"""The code-question vocabulary (check names, dtypes, losses, case and limit keys...) is written
once, in the runner's contract and the harness's spec modules; a second copy anywhere else in
the code fails here, before it can drift from the first."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from runner import contract

ROOT = Path(__file__).resolve().parent.parent
APPS = ("config", "grading", "quizbank", "runner")
# The modules that own the vocabulary.
OWNERS = {
    "runner/contract.py",
    "runner/harness/spec.py",
    "runner/harness/spec_training.py",
    "runner/harness/spec_values.py",
}
VOCABULARIES: dict[str, tuple[str, ...]] = {
    "CHECK_KINDS": contract.CHECK_KINDS,
    "DTYPES": contract.DTYPES,
    "FLOAT_DTYPES": contract.FLOAT_DTYPES,
    "LOSSES": contract.LOSSES,
    "OPTIMIZERS": tuple(contract.OPTIMIZERS),
    "STAGES": contract.STAGES,
    "DISTRIBUTIONS": contract.DISTRIBUTIONS,
    "DEVICES": contract.DEVICES,
    "LIMIT_KEYS": contract.LIMIT_KEYS,
    "COMPARE_KEYS": contract.COMPARE_KEYS,
    "COMPARE_DTYPE_RULES": contract.COMPARE_DTYPE_RULES,
    "EFFICIENCY_KEYS": contract.EFFICIENCY_KEYS,
    "CALL_CASE_KEYS": contract.CALL_CASE_KEYS,
    "TRAINING_CASE_KEYS": contract.TRAINING_CASE_KEYS,
    "TENSOR_KEYS": contract.TENSOR_KEYS,
    "RANDOM_KEYS": contract.RANDOM_KEYS,
    "RUNNER_KEYS": contract.RUNNER_KEYS,
}


def _strings(nodes: list[ast.expr]) -> set[str] | None:
    words = {n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return words if nodes and len(words) == len(set(map(ast.dump, nodes))) else None


def _word_lists(tree: ast.AST) -> list[tuple[int, set[str]]]:
    """Literals that look like a vocabulary: a tuple, list or set of strings only, or a table
    of constants keyed by strings. (A table of functions or objects keyed by check name or
    dtype is an implementation of the vocabulary, tested against it where it lives.)"""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            words = _strings(node.elts)
        elif isinstance(node, ast.Dict) and all(isinstance(v, ast.Constant) for v in node.values):
            words = _strings([key for key in node.keys if key is not None])
        else:
            continue
        if words:
            found.append((node.lineno, words))
    return found


def _enough(vocabulary: tuple[str, ...]) -> int:
    """How many of a vocabulary's words make a copy: all of a short one, else half (3 or more)."""
    return len(vocabulary) if len(vocabulary) <= 3 else max(3, (len(vocabulary) + 1) // 2)


def vocabulary_copies(source: str) -> list[str]:
    """Each literal in `source` holding most of one vocabulary: a second copy of it."""
    copies = []
    for line, words in _word_lists(ast.parse(source)):
        for name, vocabulary in VOCABULARIES.items():
            shared = words & set(vocabulary)
            if len(shared) >= _enough(vocabulary):
                copies.append(f"line {line}: {name} {sorted(shared)}")
    return copies


def _modules() -> list[Path]:
    return sorted(
        path
        for app in APPS
        for path in (ROOT / app).rglob("*.py")
        if "migrations" not in path.parts and path.relative_to(ROOT).as_posix() not in OWNERS
    )


@pytest.mark.parametrize("path", _modules(), ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_module_outside_the_contract_spells_out_its_vocabulary(path: Path) -> None:
    assert vocabulary_copies(path.read_text(encoding="utf-8")) == []


def test_the_scan_finds_a_copy_however_it_is_written() -> None:
    assert vocabulary_copies('LOSSES = ("mse", "bce_with_logits")\n')
    assert vocabulary_copies(
        'CHECKS = ["gradients", "purity", "no_graph", "gradcheck",\n'
        '          "is_leaf", "determinism", "saved_tensors"]\n'
    )
    assert vocabulary_copies('LIMITS = {"time_s": 1.0, "memory_mb": 1, "output_kb": 2}\n')
    assert vocabulary_copies('KNOWN = {"float16", "float32", "bfloat16", "float64", "int8"}\n')
    assert not vocabulary_copies('CASE = {"name": "one", "args": [1], "checks": ["gradients"]}\n')


def test_the_owners_exist() -> None:
    assert all((ROOT / owner).is_file() for owner in OWNERS)

"""Code questions in the bank: the runner's contract decides what a code question may hold.

The runner owns the schema of its part of a code question (`runner.contract`);
the bank checks only its own keys (the starter code) and reports the
contract's error at its field, like every other bank error.
"""

from __future__ import annotations

from typing import Any

from quizbank.bankfiles.checker import Checker
from runner.contract import CaseError, parse_code_question


def check_code(check: Checker, data: dict[str, Any], *, rows: bool) -> None:
    """The code-question rules of docs/bank-format.md (cases only when `rows`)."""
    check.text(data, "starter_code", ())
    try:
        parse_code_question(data, cases=rows)
    except CaseError as error:
        check.error(error.path, error.detail)

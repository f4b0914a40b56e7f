"""scripts/mutation_report.py: which area a mutant counts in (docs/mutation.md)."""

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest


def _report() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "scripts" / "mutation_report.py"
    spec = importlib.util.spec_from_file_location("mutation_report", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("mutant", "area"),
    [
        ("grading.scoring.choice.x_score_single__mutmut_16", "scoring"),
        ("grading.services.attempts.x_attempt_is_overdue__mutmut_1", "attempt clock"),
        ("grading.services.attempts.x__check_open__mutmut_2", "attempt clock"),
        ("grading.services.responses.x__check_open__mutmut_9", "attempt clock"),
        ("grading.services.responses.x_attempt_submit__mutmut_4", "attempt clock"),
        ("grading.services.responses.x_attempts_close_overdue__mutmut_6", "attempt clock"),
        # attempts.py and responses.py are mutated whole; only their clock functions count.
        ("grading.services.attempts.x_attempt_draw__mutmut_3", "outside the areas"),
        ("grading.services.responses.x_response_autosave__mutmut_5", "outside the areas"),
        ("grading.services.responses.x_answer_validate__mutmut_1", "outside the areas"),
        ("grading.services.marking.outcome.x_rubric_points__mutmut_13", "viva marking"),
        ("runner.harness.compare.x__sequence__mutmut_31", "tensor comparison"),
    ],
)
def test_a_mutant_counts_in_its_area(mutant: str, area: str) -> None:
    assert _report().area_of(mutant) == area

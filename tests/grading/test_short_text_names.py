"""Short text answers written as code: `x.grad_fn`, `with torch.inference_mode():` and the like."""

from typing import Any

import pytest

from grading.scoring import score_answer
from grading.scoring.text import bare_name


def short_text(*answers: dict[str, Any], **settings: Any) -> dict[str, Any]:
    return {"type": "short_text", "title": "T", "prompt": "P", "answers": list(answers), **settings}


def score(content: dict[str, Any], text: str) -> float:
    return score_answer(content, {"text": text}).score


GRAD_FN = short_text(
    {"text": "grad_fn"},
    {"text": "grad", "fraction": 0, "feedback": "grad holds gradients."},
    {"text": "requires_grad", "fraction": 0},
)
RETAIN_GRAD = short_text(
    {"text": "retain_grad"}, {"regex": r"^requires_grad_?(\((true)?\))?$", "fraction": 0}
)
INFERENCE_MODE = short_text(
    {"text": "inference_mode"}, {"regex": r"^(no_grad|enable_grad)$", "fraction": 0}
)


@pytest.mark.parametrize(
    ("typed", "name"),
    [
        ("grad_fn", "grad_fn"),
        ("  grad_fn\n", "grad_fn"),
        ("`grad_fn`", "grad_fn"),
        ("``y.grad_fn``", "grad_fn"),
        ("```python\nh.retain_grad()\n```", "retain_grad"),
        ("```h.retain_grad()```", "retain_grad"),
        ("x.grad_fn", "grad_fn"),
        (".grad_fn", "grad_fn"),
        ("x . grad_fn", "grad_fn"),
        ("torch.inference_mode", "inference_mode"),
        ("retain_grad()", "retain_grad"),
        ("t.retain_grad( )", "retain_grad"),
        ("with torch.inference_mode():", "inference_mode"),
        ("WITH torch.inference_mode()", "inference_mode"),
        ("@torch.no_grad()", "no_grad"),
    ],
)
def test_bare_name_strips_code_syntax_down_to_the_name(typed: str, name: str) -> None:
    assert bare_name(typed) == name


@pytest.mark.parametrize(
    "typed", ["a(1 - a)", "requires_grad_(True)", "3.5", "grad fn", "x.grad + 1", "with"]
)
def test_bare_name_leaves_text_that_is_not_a_name_as_it_was(typed: str) -> None:
    assert bare_name(typed) == typed


@pytest.mark.parametrize(
    "typed", ["grad_fn", "Grad_fn", "`grad_fn`", "x.grad_fn", "`y.grad_fn`", " .GRAD_FN "]
)
def test_every_way_of_writing_grad_fn_earns_full_marks(typed: str) -> None:
    assert score(GRAD_FN, typed) == 1.0


@pytest.mark.parametrize("typed", ["grad", "x.grad", "requires_grad", "`w.requires_grad`", "fn"])
def test_a_different_attribute_is_still_wrong_however_it_is_written(typed: str) -> None:
    assert score(GRAD_FN, typed) == 0.0


def test_the_feedback_of_a_wrong_answer_is_found_through_its_bare_name() -> None:
    verdict = score_answer(GRAD_FN, {"text": "`x.grad`"})
    assert verdict.feedback == {"answer": "grad holds gradients."}


@pytest.mark.parametrize(
    "typed", ["retain_grad", ".retain_grad()", "h.retain_grad()", "`h.retain_grad()`"]
)
def test_retain_grad_is_accepted_as_a_call_on_the_tensor(typed: str) -> None:
    assert score(RETAIN_GRAD, typed) == 1.0


@pytest.mark.parametrize("typed", ["h.requires_grad_(True)", "requires_grad_()", "retain"])
def test_requires_grad_is_not_retain_grad(typed: str) -> None:
    assert score(RETAIN_GRAD, typed) == 0.0


@pytest.mark.parametrize(
    "typed",
    [
        "inference_mode",
        "torch.inference_mode",
        "torch.inference_mode()",
        "with torch.inference_mode():",
        "`with torch.inference_mode():`",
    ],
)
def test_inference_mode_is_accepted_as_a_name_a_call_or_a_with_statement(typed: str) -> None:
    assert score(INFERENCE_MODE, typed) == 1.0


@pytest.mark.parametrize(
    "typed", ["no_grad", "torch.no_grad()", "with torch.no_grad():", "torch.enable_grad"]
)
def test_the_other_grad_mode_managers_are_not_inference_mode(typed: str) -> None:
    assert score(INFERENCE_MODE, typed) == 0.0


def test_a_regex_still_matches_the_text_as_typed() -> None:
    content = short_text({"regex": r"^x\.grad_fn$", "fraction": 0.5}, {"text": "grad_fn"})
    assert score(content, "x.grad_fn") == 0.5
    assert score(content, "grad_fn") == 1.0


def test_a_regex_is_also_tried_against_the_bare_name() -> None:
    content = short_text({"regex": r"^grad_?fn$"})
    assert score(content, "`x.gradfn`") == 1.0
    assert score(content, "x.grad") == 0.0


def test_a_case_sensitive_question_still_rejects_the_wrong_case() -> None:
    content = {**GRAD_FN, "case_sensitive": True}
    assert score(content, "`x.grad_fn`") == 1.0
    assert score(content, "Grad_fn") == 0.0
    assert score(content, "x.Grad_fn") == 0.0


def test_a_formula_key_is_not_matched_by_its_first_symbol() -> None:
    content = short_text({"text": "a(1 - a)"})
    assert score(content, "a") == 0.0
    assert score(content, "`a(1 - a)`") == 1.0


@pytest.mark.parametrize(
    "typed",
    [
        "`" * 60_000 + "x",  # a back-referencing pattern backtracked for minutes on these
        "```py\n" + " " * 60_000 + "x",
        "with x" + " " * 60_000 + "y",
        "@x" + " " * 60_000 + "y",
    ],
)
def test_long_runs_of_backticks_or_spaces_are_read_in_one_pass(typed: str) -> None:
    """Scoring runs inside the submit's transaction: a quadratic reading of a 60 KB answer
    would hold the database's write lock for minutes (it did)."""
    assert bare_name(typed).endswith(typed[-1])
    assert score(GRAD_FN, typed) == 0.0


@pytest.mark.parametrize(
    ("typed", "name"),
    [("````", ""), ("`", "`"), ("`a` b`", "a` b"), ("```\n```", ""), ("with x :", "x")],
)
def test_the_edges_of_backticks_fences_and_with_read_as_before(typed: str, name: str) -> None:
    assert bare_name(typed) == name

"""Short text answers: the whitespace and case rules, on literal answers and on regexes."""

from typing import Any

from grading.scoring import Verdict, score_answer


def short_text(*answers: dict[str, Any], **settings: Any) -> dict[str, Any]:
    return {"type": "short_text", "answers": list(answers), **settings}


def score(content: dict[str, Any], text: str) -> float:
    return score_answer(content, {"text": text}).score


def test_by_default_runs_of_spaces_count_as_one_in_the_answer_and_the_accepted_text() -> None:
    content = short_text({"text": "x  + 1"})
    assert score(content, "x + 1") == 1.0
    assert score(content, "x \t +   1") == 1.0
    assert score(content, "x+1") == 0.0
    assert score({**content, "whitespace": "normalize"}, "x +  1") == 1.0


def test_exact_whitespace_keeps_spaces_as_typed() -> None:
    content = short_text({"text": "x + 1"}, whitespace="exact")
    assert score(content, "x + 1") == 1.0
    assert score(content, "x  + 1") == 0.0


def test_ignored_whitespace_accepts_an_answer_typed_without_its_spaces() -> None:
    content = short_text({"text": "with torch.no_grad():"}, whitespace="ignore")
    assert score(content, "withtorch.no_grad():") == 1.0


def test_ignored_whitespace_applies_to_the_code_inside_backticks() -> None:
    content = short_text({"text": "x.sum(dim=1)"}, whitespace="ignore")
    assert score(content, "`x.sum(dim = 1)`") == 1.0


def test_a_case_sensitive_question_needs_the_case_of_the_text_or_regex() -> None:
    literal = short_text({"text": "Grad_fn"}, case_sensitive=True)
    assert score(literal, "Grad_fn") == 1.0
    assert score(literal, "grad_fn") == 0.0
    pattern = short_text({"regex": "Grad_?fn"}, case_sensitive=True)
    assert score(pattern, "Grad_fn") == 1.0
    assert score(pattern, "Gradfn") == 1.0
    assert score(pattern, "grad_fn") == 0.0


def test_a_case_insensitive_regex_matches_whatever_the_case_of_either() -> None:
    content = short_text({"regex": "GRAD_?FN"})
    assert score(content, "grad_fn") == 1.0
    assert score(content, "Grad_Fn") == 1.0


def test_a_match_without_feedback_gives_empty_feedback_and_no_match_none() -> None:
    content = short_text({"text": "grad_fn"})
    assert score_answer(content, {"text": "grad_fn"}) == Verdict(1.0, {"answer": ""})
    assert score_answer(content, {"text": "grad"}) == Verdict(0.0, {})


def test_a_pattern_that_backtracks_catastrophically_gives_up_as_no_match() -> None:
    """`(a|a)+b` on 40 a's takes about 2**40 steps (without the limit this never ends): it
    stops after about a tenth of a second, and the next accepted answer is still tried."""
    content = short_text({"regex": "(a|a)+b"}, {"text": "a" * 40 + "!"})
    assert score(content, "a" * 40 + "!") == 1.0
    assert score(content, "a" * 41) == 0.0


def test_many_patterns_that_backtrack_share_one_budget_and_the_rest_are_not_tried() -> None:
    """Ten `(a|aa)+c` would hold the submit for a second or two (a tenth or more each):
    after the answer's budget of 0.3 s the remaining patterns, the matching `a+` among them,
    match nothing."""
    matching = {"regex": "a+", "fraction": 0.5}
    assert score(short_text(matching), "a" * 40) == 0.5
    assert score(short_text(*[{"regex": "(a|aa)+c"}] * 10, matching), "a" * 40) == 0.0


def test_a_stored_pattern_the_grading_engine_refuses_matches_nothing_and_grades_on() -> None:
    """`[[:letters:]]` compiles in Python's `re` but not in `regex`, which grades: a question
    saved before the bank checked with `regex` must not stop its attempt's grading."""
    content = short_text({"regex": "[[:letters:]]+"}, {"text": "abc", "fraction": 0.5})
    assert score(content, "abc") == 0.5
    assert score(short_text({"regex": "a{4294967296}"}), "a") == 0.0


def test_an_answer_of_only_spaces_or_backticks_matches_nothing() -> None:
    """Such an answer reads as empty; a question stored with a blank accepted text (refused
    when saved since) or a pattern that takes the empty text must not score it."""
    for blank in ("", "  ", "``", "` `"):
        assert score(short_text({"text": ""}), blank) == 0.0, blank
    for blank in ("", "  "):
        assert score(short_text({"regex": ".*"}), blank) == 0.0, blank
    assert score(short_text({"regex": ".*"}), "anything") == 1.0

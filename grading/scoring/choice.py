"""Single choice, multiple choice (all-or-nothing or partial) and true/false."""

from typing import Any

from grading.scoring.verdict import Verdict, clamp


def _chosen_feedback(choices: list[dict[str, Any]], picked: set[int]) -> list[dict[str, Any]]:
    return [
        {"choice": index, "feedback": str(choices[index].get("feedback", ""))}
        for index in sorted(picked)
        if 0 <= index < len(choices) and choices[index].get("feedback")
    ]


def score_single(content: dict[str, Any], answer: dict[str, Any]) -> Verdict:
    """Full marks for the one correct choice, none otherwise."""
    choices: list[dict[str, Any]] = content.get("choices", [])
    picked = int(answer["choice"])
    correct = 0 <= picked < len(choices) and bool(choices[picked].get("correct"))
    return Verdict(1.0 if correct else 0.0, {"choices": _chosen_feedback(choices, {picked})})


def score_multiple(content: dict[str, Any], answer: dict[str, Any]) -> Verdict:
    """All-or-nothing by default; `partial`: +1/k per correct pick, -1/k per wrong one."""
    choices: list[dict[str, Any]] = content.get("choices", [])
    picked = {int(index) for index in answer["choices"]}
    correct = {index for index, choice in enumerate(choices) if choice.get("correct")}
    feedback = {"choices": _chosen_feedback(choices, picked)}
    if content.get("scoring", "all_or_nothing") != "partial":
        return Verdict(1.0 if picked == correct else 0.0, feedback)
    k = max(len(correct), 1)
    earned = len(picked & correct) - len(picked - correct)
    return Verdict(clamp(earned / k), feedback)


def score_true_false(content: dict[str, Any], answer: dict[str, Any]) -> Verdict:
    """Full marks when the answer matches the statement's truth."""
    value = bool(answer["value"])
    right = value is bool(content.get("answer"))
    text = content.get("true_feedback" if value else "false_feedback", "")
    return Verdict(1.0 if right else 0.0, {"answer": str(text)} if text else {})

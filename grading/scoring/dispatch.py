"""Pick the rule for a question type; code and viva are not scored here."""

from collections.abc import Callable
from typing import Any

from grading.scoring.choice import score_multiple, score_single, score_true_false
from grading.scoring.numeric import score_numeric
from grading.scoring.text import score_text
from grading.scoring.verdict import Verdict

Rule = Callable[[dict[str, Any], dict[str, Any]], Verdict]

RULES: dict[str, Rule] = {
    "single_choice": score_single,
    "multiple_choice": score_multiple,
    "true_false": score_true_false,
    "numeric": score_numeric,
    "short_text": score_text,
}


def score_answer(content: dict[str, Any], answer: dict[str, Any]) -> Verdict:
    """Score an automatically gradable answer; KeyError for code and viva."""
    verdict = RULES[str(content["type"])](content, answer)
    general = content.get("general_feedback")
    if general:
        return Verdict(verdict.score, {**verdict.feedback, "general": str(general)})
    return verdict

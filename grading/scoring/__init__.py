"""Pure scoring rules: a question version's content and an answer in, a verdict out."""

from grading.scoring.dispatch import score_answer
from grading.scoring.verdict import Verdict

__all__ = ["Verdict", "score_answer"]

"""Pure scoring rules: a question version's content and an answer in, a verdict out."""

from grading.scoring.dispatch import score_answer
from grading.scoring.verdict import UnscorableQuestion, Verdict

__all__ = ["UnscorableQuestion", "Verdict", "score_answer"]

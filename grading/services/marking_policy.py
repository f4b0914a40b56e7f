"""Marking settings of a quiz: double marking and the moderation threshold."""

from django.conf import settings

from grading.errors import InvalidMark
from grading.models.marking import QuizMarkingPolicy
from quizbank.models import Quiz


def default_threshold() -> float:
    return settings.GRADING_DISAGREEMENT_THRESHOLD


def quiz_marking_policy(quiz: Quiz) -> QuizMarkingPolicy:
    """The quiz's policy, or an unsaved one holding the site defaults."""
    policy = QuizMarkingPolicy.objects.filter(quiz=quiz).first()
    return policy or QuizMarkingPolicy(quiz=quiz, disagreement_threshold=default_threshold())


def marking_policy_set(
    *,
    quiz: Quiz,
    double_marking: bool,
    disagreement_threshold: float,
    anonymous_marking: bool | None = None,
) -> QuizMarkingPolicy:
    """Create or change the quiz's marking policy (threshold: a share of the maximum;
    `anonymous_marking` None keeps the current setting)."""
    if not 0.0 <= disagreement_threshold <= 1.0:
        raise InvalidMark(
            "The disagreement threshold is a share of the maximum, between 0 and 1.",
            fields={"disagreement_threshold": ["must be between 0 and 1"]},
        )
    values: dict[str, bool | float] = {
        "double_marking": double_marking,
        "disagreement_threshold": disagreement_threshold,
    }
    if anonymous_marking is not None:
        values["anonymous_marking"] = anonymous_marking
    policy, _ = QuizMarkingPolicy.objects.update_or_create(quiz=quiz, defaults=values)
    return policy

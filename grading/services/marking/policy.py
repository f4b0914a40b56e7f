"""A quiz's marking policy (second marking, disagreement threshold) and anonymous marking."""

from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.utils.crypto import salted_hmac

from grading.errors import InvalidMark
from grading.models import Response, ResponseStatus
from grading.models.marking import QuizMarkingPolicy
from grading.selectors import attempt_released
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


_SALT = "grading.anonymity.candidate"


def candidate_pseudonym(*, quiz_id: int, user_id: int) -> str:
    """'Candidate 7F3A0C': the same for a student throughout one quiz."""
    digest = salted_hmac(_SALT, f"{quiz_id}:{user_id}", algorithm="sha256").hexdigest()
    return f"Candidate {digest[:6].upper()}"


def anonymous_quizzes(quiz_ids: Iterable[int]) -> set[int]:
    """The quizzes among `quiz_ids` whose marking policy hides names."""
    policies = QuizMarkingPolicy.objects.filter(quiz_id__in=set(quiz_ids), anonymous_marking=True)
    return set(policies.values_list("quiz_id", flat=True))


def names_hidden(response: Response, *, policy: bool, requested: bool, now: datetime) -> bool:
    """Whether markers see a pseudonym for this answer's student (see the module)."""
    if not (policy or requested):
        return False
    final = response.status == ResponseStatus.GRADED
    return not (final and attempt_released(response.attempt, now))


def student_label(response: Response, hidden: bool) -> str:
    """The student's username, or their pseudonym in this quiz."""
    attempt = response.attempt
    if hidden:
        return candidate_pseudonym(quiz_id=attempt.quiz_id, user_id=attempt.user_id)
    return attempt.user.username

"""Anonymous marking: markers see a stable pseudonym instead of the student's name.

Names are hidden where the quiz's marking policy asks for it, or where an examiner
asks for it on a request (`?anonymous=true`); a request can hide names, never show
ones the policy hides. They stay hidden until the answer's mark is final and its
attempt released to the student. The pseudonym is an HMAC of the quiz and the user
keyed by the site's secret, so it is the same on every page of a quiz, differs
between quizzes, and cannot be worked back to the student without the secret.
"""

from collections.abc import Iterable
from datetime import datetime

from django.utils.crypto import salted_hmac

from grading.models import Response, ResponseStatus
from grading.models.marking import QuizMarkingPolicy
from grading.selectors import attempt_released

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

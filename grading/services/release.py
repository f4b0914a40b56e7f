"""Release a quiz's results to its students, refusing while answers are not final.

A release covers every submitted attempt (a live viva once it has ended) that no
earlier release covered. It is refused while any of their answers is unmarked,
waits for a second mark, is flagged for moderation, or is still with the runner
(or failed there), unless the examiner overrides by naming each of those answers
and giving a reason; the override is logged with the release. A released answer
that is not final is shown to its student as pending, never as a score of 0.
"""

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet

from config.locking import for_update
from grading.errors import InvalidRelease, ReleaseBlocked
from grading.models import Attempt, Response, ResponseStatus
from grading.models.marking import MarkingStatus
from grading.models.release import QuizRelease, ReleaseAction
from quizbank.models import Quiz
from quizbank.services.quiz_release import quiz_release, quiz_withdraw_release

# Why an answer is not final yet, by response status (and, for vivas, marking status).
_RUNNER_STATES = {
    ResponseStatus.QUEUED: "grading",
    ResponseStatus.RUNNING: "grading",
    ResponseStatus.ERROR: "grading_failed",
}
_MARKING_STATES: dict[str, str] = {
    MarkingStatus.AWAITING_SECOND: "awaiting_second_mark",
    MarkingStatus.FLAGGED: "flagged",
}
BLOCKING_STATES = ["unmarked", "awaiting_second_mark", "flagged", "grading", "grading_failed"]


@dataclass(frozen=True)
class Blocker:
    """An answer a release would show before it is final."""

    response: int
    attempt: int
    position: int
    student: str
    state: str
    attempt_number: int  # the student's own count (attempt 1, 2...), as their pages say

    def describe(self) -> str:
        return f"response {self.response}: attempt {self.attempt}, position {self.position}"


@dataclass(frozen=True)
class ReleaseOverride:
    """Release anyway: the answers the examiner knows are not final, and why."""

    responses: frozenset[int]
    reason: str


def release_pending_attempts(quiz: Quiz) -> QuerySet[Attempt]:
    """Submitted (or ended live viva) attempts that no release has covered yet."""
    return Attempt.objects.filter(quiz=quiz, submitted_at__isnull=False, released_at__isnull=True)


def _state(response: Response) -> str:
    if response.status in _RUNNER_STATES:
        return _RUNNER_STATES[ResponseStatus(response.status)]
    marking = getattr(response, "marking", None)
    return _MARKING_STATES.get(marking.status if marking else "", "unmarked")


def release_blockers(quiz: Quiz) -> list[Blocker]:
    """The answers of attempts a release would cover that are not final, in attempt order."""
    return _not_final(release_pending_attempts(quiz))


def released_not_final(quiz: Quiz) -> list[Blocker]:
    """Answers already released (an override) that are still not final: their students see
    them as pending until they are marked."""
    released = Attempt.objects.filter(quiz=quiz, released_at__isnull=False)
    return _not_final(released)


def _not_final(attempts: QuerySet[Attempt]) -> list[Blocker]:
    waiting = [ResponseStatus.NEEDS_MARKING, *_RUNNER_STATES]
    rows = (
        Response.objects.filter(attempt__in=attempts, status__in=waiting)
        .select_related("marking", "attempt__user")
        .order_by("attempt_id", "position")
    )
    return [
        Blocker(
            r.pk, r.attempt_id, r.position, r.attempt.user.username, _state(r), r.attempt.number
        )
        for r in rows
    ]


def _refusal(blockers: list[Blocker], overriding: bool) -> ReleaseBlocked:
    fields: dict[str, list[str]] = {"responses": [str(b.response) for b in blockers]}
    for b in blockers:
        fields.setdefault(b.state, []).append(b.describe())
    lead = "The override does not name" if overriding else "Release would show"
    answers = "1 answer that is" if len(blockers) == 1 else f"{len(blockers)} answers that are"
    return ReleaseBlocked(
        f"{lead} {answers} not final yet "
        f"({', '.join(sorted({b.state for b in blockers}))}). Mark them, or release anyway "
        "with an override that lists every one of them and gives a reason.",
        fields=fields,
    )


def _check(blockers: list[Blocker], override: ReleaseOverride | None) -> list[Blocker]:
    """The blockers released anyway (all of them, named by the override), else refuse."""
    if not blockers:
        return []
    if override is None:
        raise _refusal(blockers, overriding=False)
    if not override.reason.strip():
        raise InvalidRelease(
            "An override needs a reason.", fields={"override.reason": ["required"]}
        )
    missing = [b for b in blockers if b.response not in override.responses]
    if missing:
        raise _refusal(missing, overriding=True)
    return blockers


def quiz_results_release(
    *, quiz: Quiz, actor: User, now: datetime, override: ReleaseOverride | None = None
) -> QuizRelease:
    """Release the results of every attempt no release has covered yet (see the module)."""
    with transaction.atomic():
        quiz = for_update(Quiz).get(pk=quiz.pk)
        # The attempts first, then what is not final among exactly those: a submit that
        # commits between two reads of "the pending attempts" would be released unchecked.
        covered = list(release_pending_attempts(quiz).values_list("pk", flat=True))
        released = _check(_not_final(Attempt.objects.filter(pk__in=covered)), override)
        last = QuizRelease.objects.filter(quiz=quiz).order_by("pk").last()
        if (
            not covered
            and quiz.released_at is not None
            and last is not None
            and last.action == ReleaseAction.RELEASE
        ):
            # Released already and nothing new to show (a second click, a second examiner):
            # the release that stands, with no new log entry, webhook or LMS send.
            return last
        Attempt.objects.filter(pk__in=covered).update(released_at=now)
        quiz_release(quiz=quiz, now=now)
        return QuizRelease.objects.create(
            quiz=quiz,
            actor=actor,
            action=ReleaseAction.RELEASE,
            attempts=sorted(covered),
            overridden=[
                {
                    "response": b.response,
                    "attempt": b.attempt,
                    "position": b.position,
                    "state": b.state,
                }
                for b in released
            ],
            reason=override.reason.strip() if override and released else "",
            created_at=now,
        )


def _last_withdrawal(quiz: Quiz) -> QuizRelease | None:
    last = QuizRelease.objects.filter(quiz=quiz).order_by("pk").last()
    return last if last is not None and last.action == ReleaseAction.WITHDRAW else None


def quiz_results_withdraw(*, quiz: Quiz, actor: User, now: datetime) -> QuizRelease:
    """Hide every released result of the quiz again (a release made by mistake); logged."""
    with transaction.atomic():
        quiz = for_update(Quiz).get(pk=quiz.pk)
        hidden = Attempt.objects.filter(quiz=quiz, released_at__isnull=False)
        ids = sorted(hidden.values_list("pk", flat=True))
        if not ids and quiz.released_at is None and (standing := _last_withdrawal(quiz)):
            # Withdrawn already (a second click, a second examiner): that withdrawal stands.
            return standing
        hidden.update(released_at=None)
        quiz_withdraw_release(quiz=quiz)
        return QuizRelease.objects.create(
            quiz=quiz, actor=actor, action=ReleaseAction.WITHDRAW, attempts=ids, created_at=now
        )


def quiz_release_history(quiz: Quiz) -> QuerySet[QuizRelease]:
    """Every release and withdrawal of the quiz, oldest first."""
    return QuizRelease.objects.filter(quiz=quiz).select_related("actor").order_by("pk")

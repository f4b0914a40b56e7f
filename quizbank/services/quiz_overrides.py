"""Authors' writes to a quiz's access rules: per-student overrides, the access code and
the allowed networks. What they mean for a student is decided in `quiz_access`."""

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction

from quizbank.errors import AccessRuleInvalid
from quizbank.events import quiz_terms_changed
from quizbank.models import CourseMembership, Quiz, QuizAccessOverride, Role
from quizbank.services.quiz_access import parse_networks, schedule_problems

MAX_EXTRA_TIME_PERCENT = 400
MAX_EXTRA_ATTEMPTS = 20
MAX_OVERRIDE_REASON = 200  # the column's length


@dataclass(frozen=True)
class OverrideInput:
    extra_time_percent: int = 0
    extra_attempts: int = 0
    opens_at: datetime | None = None
    closes_at: datetime | None = None
    reason: str = ""


def _check_override(data: OverrideInput) -> None:
    """Every problem of the override at once, each under its field."""
    problems: dict[str, list[str]] = {}
    if not 0 <= data.extra_time_percent <= MAX_EXTRA_TIME_PERCENT:
        problems["extra_time_percent"] = [
            f"Extra time is a whole number of percent from 0 to {MAX_EXTRA_TIME_PERCENT}."
        ]
    if not 0 <= data.extra_attempts <= MAX_EXTRA_ATTEMPTS:
        problems["extra_attempts"] = [
            f"Extra attempts are a whole number from 0 to {MAX_EXTRA_ATTEMPTS}."
        ]
    if len(data.reason) > MAX_OVERRIDE_REASON:
        problems["reason"] = [
            f"The reason is {len(data.reason):,} characters long; keep it to "
            f"{MAX_OVERRIDE_REASON} (a note such as 'extra time: exam arrangement')."
        ]
    for name, messages in schedule_problems(
        opens_at=data.opens_at, closes_at=data.closes_at
    ).items():
        problems[name] = [f"The student's {name}: {message}" for message in messages]
    if data.opens_at and data.closes_at and data.closes_at <= data.opens_at:
        problems.setdefault("closes_at", []).append(
            "The student's window must close after it opens."
        )
    if problems:
        said = " ".join(message for messages in problems.values() for message in messages)
        raise AccessRuleInvalid(said, fields=problems)


@transaction.atomic
def quiz_override_set(*, quiz: Quiz, student: User, data: OverrideInput) -> QuizAccessOverride:
    """Create or replace a student's override; only a student of the quiz's course may have one."""
    _check_override(data)
    if not CourseMembership.objects.filter(
        course_id=quiz.course_id, user=student, role=Role.STUDENT
    ).exists():
        raise AccessRuleInvalid(
            f"User {student.pk} is not a student of this course.",
            fields={"student": ["not a student of the course"]},
        )
    override, _ = QuizAccessOverride.objects.update_or_create(
        quiz=quiz,
        user=student,
        defaults={
            "extra_time_percent": data.extra_time_percent,
            "extra_attempts": data.extra_attempts,
            "opens_at": data.opens_at,
            "closes_at": data.closes_at,
            "reason": data.reason,
        },
    )
    quiz_terms_changed.send(
        sender=Quiz, quiz=quiz, user_ids=[student.pk], grace_before=quiz.grace_period
    )
    return override


@transaction.atomic
def quiz_override_delete(*, quiz: Quiz, override_id: int) -> None:
    """Remove one of this quiz's overrides (an id of another quiz's is ignored)."""
    override = QuizAccessOverride.objects.filter(quiz=quiz, pk=override_id).first()
    if override is not None:
        override.delete()
        quiz_terms_changed.send(
            sender=Quiz, quiz=quiz, user_ids=[override.user_id], grace_before=quiz.grace_period
        )


# The most allowed networks a quiz keeps, from the page or the API alike.
MAX_NETWORKS = 50


def quiz_access_rules_set(*, quiz: Quiz, access_code: str, networks: list[str]) -> Quiz:
    """Set the quiz-wide access code (empty: none) and allowed networks (empty: anywhere)."""
    code = access_code.strip()
    if len(code) > 64 or not code.isprintable():
        raise AccessRuleInvalid(
            "An access code is at most 64 printable characters.",
            fields={"access_code": ["too long or not printable"]},
        )
    given = [n for n in networks if n.strip()]
    if len(given) > MAX_NETWORKS:
        raise AccessRuleInvalid(
            f"{len(given):,} networks given; a quiz allows at most {MAX_NETWORKS} "
            "(each is checked on every save): join neighbouring ones into wider blocks.",
            fields={"allowed_networks": [f"at most {MAX_NETWORKS}"]},
        )
    cleaned = [str(net) for net in parse_networks(given)]
    with transaction.atomic():
        quiz.access_code = code
        quiz.allowed_networks = cleaned
        quiz.save(update_fields=["access_code", "allowed_networks"])
    return quiz

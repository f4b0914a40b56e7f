"""Authors' writes to a quiz's access rules: per-student overrides, the access code and
the allowed networks. What they mean for a student is decided in `quiz_access`."""

import re
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction

from config.text import ONE_LINE_BANNED
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
MAX_ACCESS_CODE = 64

# An access code is typed by students: one line, and no character that cannot be seen or told
# from a space (no-break and other spaces, zero-width and other format characters). Trimmed.
ACCESS_CODE_PATTERN = (
    rf"^[^{ONE_LINE_BANNED}\u00a0\u00ad\u1680\u180e\u2000-\u200f\u202f\u205f-\u206f"
    r"\u3000\ufeff]*\Z"
)
ACCESS_CODE_RULE = (
    f"at most {MAX_ACCESS_CODE} characters, with no control characters, line breaks, "
    "bidi formatting, or spaces and format characters that cannot be seen (a no-break or "
    "zero-width space)"
)

# A network as it is typed: an IPv4 or IPv6 address, with a prefix length or without (one
# address). Netmasks (10.0.0.0/255.0.0.0) and IPv4 inside IPv6 are not taken. The API's
# schema says the same pattern.
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_IPV4 = rf"{_OCTET}(?:\.{_OCTET}){{3}}(?:/(?:3[0-2]|[12]?[0-9]))?"
_H = "[0-9a-fA-F]{1,4}"
_IPV6_ADDRESS = "|".join(
    [
        rf"(?:{_H}:){{7}}{_H}",
        rf"(?:{_H}:){{1,7}}:",
        *(rf"(?:{_H}:){{1,{6 - n}}}(?::{_H}){{1,{n + 1}}}" for n in range(6)),
        rf":(?:(?::{_H}){{1,7}}|:)",
    ]
)
_IPV6 = rf"(?:{_IPV6_ADDRESS})(?:/(?:12[0-8]|1[01][0-9]|[1-9]?[0-9]))?"
NETWORK_PATTERN = rf"^(?:{_IPV4}|{_IPV6})\Z"
NETWORK_EXAMPLES = "10.2.0.0/16, 192.0.2.7 or 2001:db8::/32"


def _check_access_code(code: str) -> None:
    if len(code) > MAX_ACCESS_CODE or not re.match(ACCESS_CODE_PATTERN, code):
        raise AccessRuleInvalid(
            f"An access code is {ACCESS_CODE_RULE}.", fields={"access_code": [ACCESS_CODE_RULE]}
        )


def _check_networks_typed(networks: list[str]) -> None:
    for index, network in enumerate(networks):
        if not re.match(NETWORK_PATTERN, network.strip()):
            message = f"not a network such as {NETWORK_EXAMPLES}"
            raise AccessRuleInvalid(
                f"{network!r} is {message}.", fields={f"allowed_networks[{index}]": [message]}
            )


def quiz_access_rules_set(*, quiz: Quiz, access_code: str, networks: list[str]) -> Quiz:
    """Set the quiz-wide access code (empty: none) and allowed networks (empty: anywhere)."""
    code = access_code.strip()
    _check_access_code(code)
    given = [n for n in networks if n.strip()]
    if len(given) > MAX_NETWORKS:
        raise AccessRuleInvalid(
            f"{len(given):,} networks given; a quiz allows at most {MAX_NETWORKS} "
            "(each is checked on every save): join neighbouring ones into wider blocks.",
            fields={"allowed_networks": [f"at most {MAX_NETWORKS}"]},
        )
    _check_networks_typed(given)
    cleaned = [str(net) for net in parse_networks(given)]
    with transaction.atomic():
        quiz.access_code = code
        quiz.allowed_networks = cleaned
        quiz.save(update_fields=["access_code", "allowed_networks"])
    return quiz

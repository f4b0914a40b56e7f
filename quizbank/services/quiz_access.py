"""A quiz's terms for one student: the quiz's settings with that student's override applied,
and the checks of its access code and allowed networks.

This is the only place the terms are computed; starting an attempt, its deadline, the
API and the pages all read `quiz_terms`.
"""

import ipaddress
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db.models import Max

from config.signin import count_in_window
from quizbank.errors import (
    AccessCodeTriesUsedUp,
    AccessCodeWrong,
    AccessRuleInvalid,
    NetworkNotAllowed,
)
from quizbank.models import Quiz, QuizAccessOverride

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# A quiz's times stay far from both ends of the calendar Python (year 1 to 9999) and
# PostgreSQL count, so a close time plus a grace period, or a start plus a stretched time
# limit, always exists, in every time zone.
EARLIEST_TIME = datetime(1900, 1, 1, tzinfo=UTC)
LATEST_TIME = datetime(9000, 1, 1, tzinfo=UTC)
MAX_TIME_LIMIT = timedelta(days=30)
MAX_GRACE_PERIOD = timedelta(days=30)


def schedule_problems(**times: datetime | None) -> dict[str, list[str]]:
    """What is wrong with each named time (`opens_at=...`, `closes_at=...`): too far away."""
    return {
        name: [f"Must be between {EARLIEST_TIME.year}-01-01 and {LATEST_TIME.year}-01-01 (UTC)."]
        for name, value in times.items()
        if value is not None and not EARLIEST_TIME <= value < LATEST_TIME
    }


@dataclass(frozen=True)
class QuizTerms:
    opens_at: datetime | None
    closes_at: datetime | None
    time_limit: timedelta | None
    attempts_allowed: int  # 0: unlimited
    extra_time_percent: int
    extra_attempts: int
    needs_access_code: bool
    networks: tuple[str, ...]
    has_override: bool

    def deadline(self, started_at: datetime) -> datetime | None:
        """min(start + time limit, close time); None when untimed with no close."""
        candidates = [self.closes_at] if self.closes_at is not None else []
        if self.time_limit is not None:
            candidates.append(started_at + self.time_limit)
        return min(candidates) if candidates else None


def quiz_answers_end_at(quiz: Quiz) -> datetime | None:
    """When the last student's answers close: the quiz's close, or a later close a student's
    override grants, plus the grace period; None when the quiz itself never closes."""
    if quiz.closes_at is None:
        return None
    later = QuizAccessOverride.objects.filter(quiz=quiz, closes_at__gt=quiz.closes_at)
    latest = later.aggregate(latest=Max("closes_at"))["latest"] or quiz.closes_at
    return latest + quiz.grace_period


def _stretched(limit: timedelta | None, percent: int) -> timedelta | None:
    if limit is None or not percent:
        return limit
    return limit * (100 + percent) / 100


def quiz_terms(*, quiz: Quiz, user_id: int) -> QuizTerms:
    """The quiz as it applies to this user (their override, if any, applied)."""
    override = QuizAccessOverride.objects.filter(quiz=quiz, user_id=user_id).first()
    extra_time = override.extra_time_percent if override else 0
    extra_attempts = override.extra_attempts if override else 0
    attempts = quiz.attempts_allowed + extra_attempts if quiz.attempts_allowed else 0
    return QuizTerms(
        opens_at=override.opens_at if override and override.opens_at else quiz.opens_at,
        closes_at=override.closes_at if override and override.closes_at else quiz.closes_at,
        time_limit=_stretched(quiz.time_limit, extra_time),
        attempts_allowed=attempts,
        extra_time_percent=extra_time,
        extra_attempts=extra_attempts,
        needs_access_code=bool(quiz.access_code),
        networks=tuple(quiz.allowed_networks or ()),
        has_override=override is not None,
    )


def parse_networks(values: list[str]) -> list[Network]:
    """CIDR blocks from text; AccessRuleInvalid naming the first one that is not."""
    parsed = []
    for index, value in enumerate(values):
        try:
            parsed.append(ipaddress.ip_network(str(value).strip(), strict=False))
        except ValueError:
            raise AccessRuleInvalid(
                f"{value!r} is not a network such as 10.2.0.0/16.",
                fields={f"allowed_networks[{index}]": ["not a network"]},
            ) from None
    return parsed


def address_allowed(*, networks: tuple[str, ...] | list[str], address: str) -> bool:
    """True when no networks are set or the address lies in one of them."""
    if not networks:
        return True
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False  # no address (or a garbled one) is never inside the room
    return any(ip in network for network in parse_networks(list(networks)))


def quiz_access_check(*, quiz: Quiz, user_id: int, access_code: str, address: str) -> None:
    """Refuse (403) a wrong or missing access code, or an address outside the networks;
    after ACCESS_CODE_FAILURES wrong codes from the student within the window, refuse
    every code (429) until the window ends."""
    if not address_allowed(networks=quiz.allowed_networks or [], address=address):
        raise NetworkNotAllowed(
            "This quiz can only be taken from the exam room's network.",
            fields={"address": ["outside the quiz's allowed networks"]},
        )
    if quiz.access_code:
        _access_code_check(quiz, user_id, access_code)


def _access_code_check(quiz: Quiz, user_id: int, access_code: str) -> None:
    failures_key = f"quiz-access-code-failures:{quiz.pk}:{user_id}"
    window_s = int(settings.ACCESS_CODE_FAILURE_WINDOW_S)
    if int(cache.get(failures_key, 0)) >= int(settings.ACCESS_CODE_FAILURES):
        used_up = AccessCodeTriesUsedUp(
            f"Too many wrong access codes; try again within {window_s // 60} minutes "
            "or ask the invigilator.",
            fields={"access_code": ["too many wrong tries"]},
        )
        used_up.retry_after_s = window_s  # the window runs from the first wrong code: at most
        raise used_up
    if not access_code.strip():
        # Not a guess: a client that skipped the page's required field is told what is missing,
        # and no try is used up.
        raise AccessCodeWrong(
            "This quiz needs an access code; ask the invigilator for it.",
            fields={"access_code": ["required"]},
        )
    if not secrets.compare_digest(access_code.strip().encode(), quiz.access_code.encode()):
        count_in_window(failures_key, window_s)
        raise AccessCodeWrong(
            "That access code is not this quiz's; ask the invigilator.",
            fields={"access_code": ["wrong access code"]},
        )

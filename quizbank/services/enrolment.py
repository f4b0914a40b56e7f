"""Enrol students in a course from a pasted list or an uploaded CSV of usernames or e-mails,
and take them out of it again.

Only existing, active accounts are enrolled; every entry that matches none is reported
back, never created, so a typo cannot make an account. An entry is an account's exact
username, or its username or e-mail ignoring case when exactly one account has it; an entry
that several accounts match so ('Carol' and 'carol', one e-mail on two accounts) is reported
back too, never guessed."""

import csv
import io
import re
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Lower

from config.text import TEXT_MESSAGE, is_storable
from quizbank.errors import AccessRuleInvalid
from quizbank.models import Course, CourseMembership, Role

MAX_ENTRIES = 5000
_SEPARATORS = re.compile(r"[\s,;]+")
_HEADERS = {"username", "email", "e-mail", "user", "login"}


@dataclass
class EnrolmentResult:
    added: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    ambiguous: list[str] = field(default_factory=list)
    # Of those added, the ones who also author or examine this course (said, not refused:
    # a teacher may try a quiz as a student).
    staff: list[str] = field(default_factory=list)


def entries_from_text(text: str) -> list[str]:
    """Usernames or e-mails separated by new lines, commas, semicolons or spaces."""
    return [entry for entry in _SEPARATORS.split(text) if entry]


def entries_from_csv(data: bytes) -> list[str]:
    """The first column of a CSV (a header row such as `username` or `email` is skipped)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AccessRuleInvalid(
            "The CSV file is not UTF-8 text.", fields={"file": ["not UTF-8"]}
        ) from None
    if not is_storable(text):
        raise AccessRuleInvalid(
            f"The CSV file holds a character that cannot be stored. {TEXT_MESSAGE}",
            fields={"file": ["unstorable text"]},
        )
    try:
        rows = [row for row in csv.reader(io.StringIO(text)) if row and row[0].strip()]
    except csv.Error as error:  # a field past the csv module's size limit, a stray quote
        raise AccessRuleInvalid(
            f"The CSV file could not be read: {error}.", fields={"file": [f"unreadable: {error}"]}
        ) from None
    if rows and rows[0][0].strip().lower() in _HEADERS:
        rows = rows[1:]
    return [row[0].strip() for row in rows]


@dataclass
class _Accounts:
    """The active accounts that entries may name: by exact username, and by username and
    e-mail in lower case (a list each, as several accounts may share one)."""

    by_username: dict[str, User] = field(default_factory=dict)
    by_lower_username: dict[str, list[User]] = field(default_factory=dict)
    by_lower_email: dict[str, list[User]] = field(default_factory=dict)

    def named(self, entry: str) -> User | None:
        """The account `entry` names; None when none does. AMBIGUOUS when several do."""
        exact = self.by_username.get(entry)
        if exact is not None:
            return exact
        for accounts in (self.by_lower_username, self.by_lower_email):
            matching = accounts.get(entry.lower(), [])
            if len(matching) > 1:
                raise _Ambiguous
            if matching:
                return matching[0]
        return None


class _Ambiguous(Exception):
    """An entry several accounts match ignoring case."""


def _match(entries: list[str]) -> _Accounts:
    lowered = [entry.lower() for entry in entries]
    users = (
        User.objects.filter(is_active=True)
        .annotate(username_lower=Lower("username"), email_lower=Lower("email"))
        .filter(Q(username_lower__in=lowered) | Q(email_lower__in=lowered))
        .order_by("pk")
    )
    found = _Accounts()
    for user in users:
        found.by_username[user.username] = user
        found.by_lower_username.setdefault(user.username.lower(), []).append(user)
        if user.email:
            found.by_lower_email.setdefault(user.email.lower(), []).append(user)
    return found


@dataclass
class UnenrolmentResult:
    removed: list[str] = field(default_factory=list)
    not_enrolled: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    ambiguous: list[str] = field(default_factory=list)


def _accounts(entries: list[str], result: EnrolmentResult | UnenrolmentResult) -> list[User]:
    """The account of each distinct entry; an entry that names none is added to the
    result's `unknown`, one that several accounts match to its `ambiguous`."""
    unique = list(dict.fromkeys(entry.strip() for entry in entries if entry.strip()))
    if len(unique) > MAX_ENTRIES:
        raise AccessRuleInvalid(
            f"At most {MAX_ENTRIES} students at a time.", fields={"entries": ["too many"]}
        )
    found = _match(unique)
    named = []
    for entry in unique:
        try:
            user = found.named(entry)
        except _Ambiguous:
            result.ambiguous.append(entry)
            continue
        if user is None:
            result.unknown.append(entry)
        else:
            named.append(user)
    return named


def course_enrol_students(*, course: Course, entries: list[str]) -> EnrolmentResult:
    """Make each listed account a student of the course; report who was added, who
    already was one and which entries match no account."""
    result = EnrolmentResult()
    with transaction.atomic():
        for user in _accounts(entries, result):
            _, created = CourseMembership.objects.get_or_create(
                course=course, user=user, role=Role.STUDENT
            )
            (result.added if created else result.already).append(user.username)
        teaching = CourseMembership.objects.filter(
            course=course, user__username__in=result.added, role__in=[Role.AUTHOR, Role.EXAMINER]
        )
        result.staff = sorted(set(teaching.values_list("user__username", flat=True)))
    return result


def course_unenrol_students(*, course: Course, entries: list[str]) -> UnenrolmentResult:
    """End each listed account's place as a student of the course: it starts none of the
    course's quizzes from now on. Its attempts, answers and grades are kept, and an attempt
    it has open may still be saved and submitted until its deadline."""
    result = UnenrolmentResult()
    with transaction.atomic():
        for user in _accounts(entries, result):
            removed, _ = CourseMembership.objects.filter(
                course=course, user=user, role=Role.STUDENT
            ).delete()
            (result.removed if removed else result.not_enrolled).append(user.username)
    return result

"""Enrol students in a course from a pasted list or an uploaded CSV of usernames or e-mails,
and take them out of it again.

Only existing, active accounts are enrolled; every entry that matches none is reported
back, never created, so a typo cannot make an account."""

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


def _match(entries: list[str]) -> dict[str, User]:
    lowered = [entry.lower() for entry in entries]
    users = (
        User.objects.filter(is_active=True)
        .annotate(email_lower=Lower("email"))
        .filter(Q(username__in=entries) | Q(email_lower__in=lowered))
    )
    found: dict[str, User] = {}
    for user in users:
        found.setdefault(user.username, user)
        if user.email:
            found.setdefault(user.email.lower(), user)
    return found


@dataclass
class UnenrolmentResult:
    removed: list[str] = field(default_factory=list)
    not_enrolled: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def _accounts(entries: list[str]) -> list[tuple[str, User | None]]:
    """Each distinct entry with its account (None when it matches none)."""
    unique = list(dict.fromkeys(entry.strip() for entry in entries if entry.strip()))
    if len(unique) > MAX_ENTRIES:
        raise AccessRuleInvalid(
            f"At most {MAX_ENTRIES} students at a time.", fields={"entries": ["too many"]}
        )
    found = _match(unique)
    return [(entry, found.get(entry) or found.get(entry.lower())) for entry in unique]


def course_enrol_students(*, course: Course, entries: list[str]) -> EnrolmentResult:
    """Make each listed account a student of the course; report who was added, who
    already was one and which entries match no account."""
    result = EnrolmentResult()
    with transaction.atomic():
        for entry, user in _accounts(entries):
            if user is None:
                result.unknown.append(entry)
                continue
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
        for entry, user in _accounts(entries):
            if user is None:
                result.unknown.append(entry)
                continue
            removed, _ = CourseMembership.objects.filter(
                course=course, user=user, role=Role.STUDENT
            ).delete()
            (result.removed if removed else result.not_enrolled).append(user.username)
    return result

"""Course memberships set in bulk by external id: each listed user ends with exactly the
roles given (an empty list removes them from the course); unlisted users are untouched."""

from dataclasses import dataclass

from django.db import transaction

from config.locking import for_update
from lms.errors import UnknownExternalId
from lms.models import ExternalIdentity
from quizbank.models import Course, CourseMembership


@dataclass(frozen=True)
class MembershipChange:
    external_id: str
    roles: frozenset[str]


@dataclass(frozen=True)
class RosterResult:
    added: int
    removed: int


def _identities(namespace: str, changes: list[MembershipChange]) -> dict[str, ExternalIdentity]:
    wanted = {c.external_id for c in changes}
    found = {
        i.external_id: i
        for i in ExternalIdentity.objects.filter(namespace=namespace, external_id__in=wanted)
    }
    missing = {
        f"memberships[{n}].external_id": [f"Unknown: {c.external_id}"]
        for n, c in enumerate(changes)
        if c.external_id not in found
    }
    if missing:
        raise UnknownExternalId(
            "Some external ids are unknown; nothing was changed.", fields=missing
        )
    return found


@transaction.atomic
def memberships_upsert(
    *, course: Course, namespace: str, changes: list[MembershipChange]
) -> RosterResult:
    """Set each listed user's roles in the course; all or nothing. One course's changes go
    one at a time (its row locked), so two sent at once never insert the same role twice."""
    for_update(Course).get(pk=course.pk)
    identities = _identities(namespace, changes)
    added = removed = 0
    for change in changes:
        user_id = identities[change.external_id].user_id
        rows = CourseMembership.objects.filter(course=course, user_id=user_id)
        held = set(rows.values_list("role", flat=True))
        removed += rows.exclude(role__in=change.roles).delete()[0]
        new = [
            CourseMembership(course=course, user_id=user_id, role=role)
            for role in sorted(change.roles - held)
        ]
        CourseMembership.objects.bulk_create(new)
        added += len(new)
    return RosterResult(added=added, removed=removed)


def course_roster(*, course: Course, namespace: str) -> list[tuple[str, str, str]]:
    """(external id, username, role) of the course's members known in the namespace."""
    ids = dict(
        ExternalIdentity.objects.filter(namespace=namespace).values_list("user_id", "external_id")
    )
    rows = CourseMembership.objects.filter(course=course, user_id__in=ids).select_related("user")
    return sorted((ids[m.user_id], m.user.username, m.role) for m in rows)

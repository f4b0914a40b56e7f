"""Names and Role Provisioning: an examiner brings a course's roster over from the LMS.

Each member the platform lists is matched by its `user_id` (the launch's `sub`), its names
and email brought up to date, or created, and gets the course roles of its LIS roles
(Learner -> student, Instructor or TeachingAssistant -> examiner); a member the platform
lists as Inactive or Deleted loses those roles. Members the platform does not list are left alone.
"""

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from lms import lti
from lms.errors import LaunchRefused
from lms.models import LtiRosterSource
from lms.services.lti_launch import ROLE_FOR, user_for_launch
from quizbank.models import Course, CourseMembership


@dataclass(frozen=True)
class RosterSync:
    members: int
    added: int
    removed: int


def _member_claims(source: LtiRosterSource, member: dict[str, Any]) -> lti.LaunchClaims:
    return lti.LaunchClaims(
        registration_id=source.registration_id,
        issuer=source.registration.issuer,
        nonce="",
        subject=str(member.get("user_id", "")),
        message_type="",
        roles=lti.role_names(member.get("roles")),
        name=lti.claim_text(member.get("name")),
        given_name=lti.claim_text(member.get("given_name")),
        family_name=lti.claim_text(member.get("family_name")),
        email=lti.claim_text(member.get("email")),
    )


def _apply(course: Course, source: LtiRosterSource, member: dict[str, Any]) -> tuple[int, int]:
    claims = _member_claims(source, member)
    try:
        user = user_for_launch(claims)
    except LaunchRefused:
        return 0, 0  # no user_id, or a deactivated account: nothing to change
    roles: set[str] = {ROLE_FOR[r] for r in claims.roles if r in ROLE_FOR}
    rows = CourseMembership.objects.filter(course=course, user=user)
    if member.get("status", "Active") != "Active":
        return 0, rows.filter(role__in=set(ROLE_FOR.values())).delete()[0]
    held = set(rows.values_list("role", flat=True))
    CourseMembership.objects.bulk_create(
        CourseMembership(course=course, user=user, role=role) for role in roles - held
    )
    return len(roles - held), 0


def roster_sync(*, course: Course) -> list[RosterSync]:
    """Fetch and apply the roster of every platform that launched into the course."""
    results = []
    sources = LtiRosterSource.objects.filter(course=course).select_related("registration")
    for source in sources:
        members = lti.roster_members(
            registration_id=source.registration_id, memberships_url=source.memberships_url
        )
        with transaction.atomic():
            changes = [_apply(course, source, m) for m in members]
        results.append(
            RosterSync(
                members=len(members),
                added=sum(a for a, _ in changes),
                removed=sum(r for _, r in changes),
            )
        )
    return results

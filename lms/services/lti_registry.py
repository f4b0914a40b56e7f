"""LTI platform registrations over the API: the platform's issuer, client id, URLs, keys
(a JWKS URL or pasted public keys) and deployments, and the courses it may launch into
(django-lti's models underneath)."""

from typing import Any

from django.db import transaction
from lti_tool.models import LtiDeployment, LtiRegistration

from config.exceptions import DomainError
from lms.models import LtiCourseGrant
from lms.services.platform_keys import FIELD, platform_keys_set, platform_keys_text
from quizbank.models import Course

FIELDS = ("name", "issuer", "client_id", "auth_url", "token_url", "keyset_url", "is_active")


class RegistrationTaken(DomainError):
    code = "registration_taken"
    status_code = 409


def key_source_error(*, keyset_url: str, public_keys: str) -> str | None:
    """Why these keys cannot verify launches (None: they can): a registration needs
    exactly one of a JWKS URL and pasted public keys."""
    if bool(keyset_url) == bool(public_keys.strip()):
        both = "not both" if keyset_url else "one is needed"
        return f"Give the platform's keyset_url or paste its {FIELD}: {both}."
    return None


def registration_keys_check(registration: LtiRegistration) -> None:
    keys = platform_keys_text(registration)
    message = key_source_error(keyset_url=registration.keyset_url, public_keys=keys)
    if message:
        raise DomainError(message, fields={"keyset_url": [message], FIELD: [message]})


def _set_links(
    registration: LtiRegistration,
    deployments: list[str] | None,
    grants: dict[int, str | None] | None,
) -> None:
    if deployments is not None:
        registration.deployments.exclude(deployment_id__in=deployments).update(is_active=False)
        for deployment_id in deployments:
            LtiDeployment.objects.update_or_create(
                registration=registration,
                deployment_id=deployment_id,
                defaults={"is_active": True},
            )
    if grants is not None:
        _set_grants(registration, grants)


def _set_grants(registration: LtiRegistration, grants: dict[int, str | None]) -> None:
    """Exactly these course grants; a context id of None keeps a grant's binding (a new
    grant gets none)."""
    field = "grants" if any(context is not None for context in grants.values()) else "courses"
    known = set(Course.objects.filter(pk__in=list(grants)).values_list("pk", flat=True))
    missing = sorted(set(grants) - known)
    if missing:
        raise DomainError("No such course.", fields={field: [f"Unknown: {missing}"]})
    LtiCourseGrant.objects.filter(registration=registration).exclude(course_id__in=known).delete()
    for course_id, context_id in grants.items():
        grant, _ = LtiCourseGrant.objects.get_or_create(
            registration=registration, course_id=course_id
        )
        if context_id is not None and grant.context_id != context_id:
            grant.context_id = context_id
            grant.save(update_fields=["context_id"])


def _wanted_grants(data: dict[str, Any]) -> dict[int, str | None] | None:
    courses, grants = data.pop("courses", None), data.pop("grants", None)
    if grants is not None:
        return {grant["course"]: grant["context_id"] for grant in grants}
    if courses is not None:
        return dict.fromkeys(courses)
    return None


@transaction.atomic
def registration_save(
    *, registration: LtiRegistration | None, data: dict[str, Any]
) -> LtiRegistration:
    """Create or change a registration; `public_keys` (pasted; empty drops them) checked,
    `deployments` (ids) become exactly its active deployments, and `courses` (ids) or
    `grants` (course and context id) exactly the courses it may launch into."""
    deployments, grants = data.pop("deployments", None), _wanted_grants(data)
    public_keys: str | None = data.pop(FIELD, None)
    registration = registration or LtiRegistration()
    for name in FIELDS:
        if name in data:
            setattr(registration, name, data[name])
    clash = LtiRegistration.objects.filter(
        issuer=registration.issuer, client_id=registration.client_id
    )
    if clash.exclude(pk=registration.pk).exists():
        raise RegistrationTaken(
            "This issuer and client id are registered already.",
            fields={"client_id": ["Already registered for this issuer."]},
        )
    registration.save()
    if public_keys is not None:
        platform_keys_set(registration=registration, text=public_keys)
    registration_keys_check(registration)
    _set_links(registration, deployments, grants)
    return registration


def registration_view(registration: LtiRegistration) -> dict[str, Any]:
    """The registration as the API shows it."""
    active = registration.deployments.filter(is_active=True).order_by("deployment_id")
    grants = LtiCourseGrant.objects.filter(registration=registration).order_by("course_id")
    return {
        **{name: getattr(registration, name) for name in FIELDS},
        "id": registration.pk,
        FIELD: platform_keys_text(registration),
        "deployments": list(active.values_list("deployment_id", flat=True)),
        "courses": [grant.course_id for grant in grants],
        "grants": [{"course": g.course_id, "context_id": g.context_id} for g in grants],
    }

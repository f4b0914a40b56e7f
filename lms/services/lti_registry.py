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
    registration: LtiRegistration, deployments: list[str] | None, courses: list[int] | None
) -> None:
    if deployments is not None:
        registration.deployments.exclude(deployment_id__in=deployments).update(is_active=False)
        for deployment_id in deployments:
            LtiDeployment.objects.update_or_create(
                registration=registration,
                deployment_id=deployment_id,
                defaults={"is_active": True},
            )
    if courses is not None:
        known = set(Course.objects.filter(pk__in=courses).values_list("pk", flat=True))
        missing = sorted(set(courses) - known)
        if missing:
            raise DomainError("No such course.", fields={"courses": [f"Unknown: {missing}"]})
        LtiCourseGrant.objects.filter(registration=registration).exclude(
            course_id__in=known
        ).delete()
        for course_id in known:
            LtiCourseGrant.objects.get_or_create(registration=registration, course_id=course_id)


@transaction.atomic
def registration_save(
    *, registration: LtiRegistration | None, data: dict[str, Any]
) -> LtiRegistration:
    """Create or change a registration; `public_keys` (pasted; empty drops them) checked,
    `deployments` (ids) become exactly its active deployments and `courses` (ids) exactly
    the courses it may launch into."""
    deployments, courses = data.pop("deployments", None), data.pop("courses", None)
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
    _set_links(registration, deployments, courses)
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
        "courses": list(grants.values_list("course_id", flat=True)),
    }

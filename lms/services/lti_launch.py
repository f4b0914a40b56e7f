"""An accepted LTI launch: refuse a replay, find the quiz, match or create the user and
their course membership (all or nothing: a refused launch leaves no row behind), and
the attempt a student's launch opens."""

import hashlib
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet

from config.fields import id_from_text
from config.text import one_line_cleaned
from grading.models import Attempt
from grading.services.attempts import attempt_start
from lms.errors import LaunchRefused, SiteAdminAccount
from lms.lti import SCORE_SCOPE, LaunchClaims
from lms.models import (
    ExternalIdentity,
    LtiCourseGrant,
    LtiLineItem,
    LtiNonceUse,
    LtiRosterSource,
)
from lms.services.users import free_username, refuse_site_admin
from quizbank.models import Course, CourseMembership, Quiz, Role

# LIS membership roles -> course roles (anything else gets no role).
ROLE_FOR = {
    "Learner": Role.STUDENT,
    "Instructor": Role.EXAMINER,
    "TeachingAssistant": Role.EXAMINER,
}


# LTI 1.3 caps `sub` at 255 characters, as our external ids.
SUB_MAX_LENGTH = ExternalIdentity._meta.get_field("external_id").max_length or 255


def launch_roles(claims: LaunchClaims) -> set[str]:
    """The course roles the launch's LIS roles give."""
    return {ROLE_FOR[r] for r in claims.roles if r in ROLE_FOR}


def line_item_record(*, registration_id: int, quiz: Quiz, ags: dict[str, Any]) -> None:
    """Remember the line item a launch names, when the platform lets us post scores."""
    url, scopes = ags.get("lineitem"), ags.get("scope")
    if isinstance(url, str) and url and isinstance(scopes, list) and SCORE_SCOPE in scopes:
        LtiLineItem.objects.update_or_create(
            registration_id=registration_id,
            url=url[:1000],
            defaults={"quiz": quiz, "scopes": scopes},
        )


def roster_source_record(*, claims: LaunchClaims, course: Course, now: datetime) -> None:
    """Remember where the platform lists this course's members (NRPS, from a launch)."""
    if claims.memberships_url:
        LtiRosterSource.objects.update_or_create(
            registration_id=claims.registration_id,
            course=course,
            defaults={"memberships_url": claims.memberships_url[:1000], "updated_at": now},
        )


def lti_namespace(issuer: str) -> str:
    """Where a platform's user ids (`sub`) live: one namespace per issuer."""
    return f"lti:{issuer}"


def refuse_replay(claims: LaunchClaims, now: datetime) -> None:
    try:
        with transaction.atomic():
            LtiNonceUse.objects.create(issuer=claims.issuer, nonce=claims.nonce, used_at=now)
    except IntegrityError as exc:
        raise LaunchRefused("This launch was already used (replayed id_token).") from exc


def grants_for(
    *, registration_id: int, context_id: str, bound_only: bool = False
) -> QuerySet[LtiCourseGrant]:
    """The course grants a launch from this LMS course (context) may use: those bound to
    it, and, unless `bound_only`, those bound to none."""
    grants = LtiCourseGrant.objects.filter(registration_id=registration_id)
    if bound_only:
        return grants.filter(context_id=context_id) if context_id else grants.none()
    return grants.filter(Q(context_id="") | Q(context_id=context_id))


# On some platforms anyone may make a course and be its instructor: a grant bound to no
# LMS course must not make such a person an examiner of ours, nor let their course's roster
# stand for ours.
UNBOUND_GRANT = (
    "This platform's grant of the course is bound to no LMS course, so it admits learners "
    "only: an instructor becomes an examiner through a grant bound to their own LMS course"
)


def _unbound_refusal(claims: LaunchClaims) -> LaunchRefused:
    if not claims.context_id:
        return LaunchRefused(f"{UNBOUND_GRANT}, and this launch names no LMS course (context).")
    return LaunchRefused(
        f"{UNBOUND_GRANT}: a Vivabank administrator sets the grant's context id to "
        f"{claims.context_id!r}, this LMS course's."
    )


def _granted_quiz(claims: LaunchClaims) -> tuple[Quiz, bool]:
    """The quiz the launch names, if granted to the platform for its LMS course, and whether
    that grant is bound to this LMS course (False: a grant bound to none)."""
    quiz_id = id_from_text(str(claims.custom.get("quiz_id", "")))
    quiz = None if quiz_id is None else Quiz.objects.filter(pk=quiz_id).first()
    grants = grants_for(registration_id=claims.registration_id, context_id=claims.context_id)
    contexts = (
        []
        if quiz is None
        else list(grants.filter(course_id=quiz.course_id).values_list("context_id", flat=True))
    )
    if quiz is None or not contexts:
        raise LaunchRefused("The launch names no quiz this platform may open (custom quiz_id).")
    return quiz, bool(claims.context_id) and claims.context_id in contexts


EMAIL_MAX_LENGTH = User._meta.get_field("email").max_length or 254


def _email(text: str) -> str:
    if len(text) > EMAIL_MAX_LENGTH:
        return ""
    try:
        validate_email(text)
    except ValidationError:
        return ""
    return text


def launch_profile(claims: LaunchClaims) -> dict[str, str]:
    """The names and email a platform sent, as an account stores them: the names under
    the one-line rule (an LMS's odd display name is cleaned, never a refused launch), an
    email only if it is one."""
    first_name = one_line_cleaned(claims.given_name, max_length=150)
    return {
        "first_name": first_name or one_line_cleaned(claims.name, max_length=150),
        "last_name": one_line_cleaned(claims.family_name, max_length=150),
        "email": _email(claims.email),
    }


def _profile_refresh(user: User, claims: LaunchClaims) -> None:
    """A known user's names and email as the platform sends them now (a name changed in the
    LMS); a field the platform left out or sent unusable keeps what is stored."""
    sent = {name: value for name, value in launch_profile(claims).items() if value}
    changed = [name for name, value in sent.items() if getattr(user, name) != value]
    for name in changed:
        setattr(user, name, sent[name])
    if changed:
        user.save(update_fields=changed)


def user_for_launch(claims: LaunchClaims) -> User:
    """The launching user: matched by issuer and sub (names and email brought up to date),
    or created; refused when the launch names nobody, the account is deactivated or it was
    made a site administrator."""
    if not claims.subject:
        raise LaunchRefused("The launch names no user (sub).")
    if len(claims.subject) > SUB_MAX_LENGTH:
        raise LaunchRefused(f"The launch's user id (sub) is over {SUB_MAX_LENGTH} characters.")
    namespace = lti_namespace(claims.issuer)
    known = ExternalIdentity.objects.filter(namespace=namespace, external_id=claims.subject)
    identity = known.select_related("user").first()
    if identity is None:
        try:
            return _user_created(namespace, claims)
        except IntegrityError:
            # A second launch of a new user (two tabs) created the account first; use it.
            identity = known.select_related("user").get()
    if not identity.user.is_active:
        raise LaunchRefused("This account is deactivated.")
    try:
        refuse_site_admin(identity.user)
    except SiteAdminAccount as exc:
        raise LaunchRefused(exc.message) from exc
    _profile_refresh(identity.user, claims)
    return identity.user


def _user_created(namespace: str, claims: LaunchClaims) -> User:
    digest = hashlib.sha256(f"{namespace} {claims.subject}".encode()).hexdigest()[:16]
    with transaction.atomic():
        user = User(username=free_username(f"lti-{digest}"), **launch_profile(claims))
        user.set_unusable_password()
        user.save()
        ExternalIdentity.objects.create(namespace=namespace, external_id=claims.subject, user=user)
    return user


@transaction.atomic
def launch_accept(*, claims: LaunchClaims, now: datetime) -> tuple[User, Quiz]:
    """The signed-in user and the quiz a resource launch opens."""
    refuse_replay(claims, now)
    quiz, bound = _granted_quiz(claims)
    roles = launch_roles(claims)
    if not bound and roles - {Role.STUDENT}:
        raise _unbound_refusal(claims)
    user = user_for_launch(claims)
    for role in sorted(roles):
        CourseMembership.objects.get_or_create(course_id=quiz.course_id, user=user, role=role)
    line_item_record(registration_id=claims.registration_id, quiz=quiz, ags=claims.ags)
    if bound:
        roster_source_record(claims=claims, course=quiz.course, now=now)
    return user, quiz


def launch_attempt(*, quiz: Quiz, user: User, now: datetime, address: str) -> Attempt | None:
    """The attempt a student's launch opens: their open attempt, else their last finished
    one (its result; another is started from the dashboard), else a new one, but only for
    an untimed quiz: a timed one's clock starts when the student presses Start (None). A
    domain error (not open, access code needed, outside the exam room) when none can start."""
    latest = Attempt.objects.filter(quiz=quiz, user=user).order_by("-number").first()
    if latest is not None:
        return latest
    if quiz.time_limit is not None:
        return None
    return attempt_start(quiz=quiz, user=user, now=now, address=address)

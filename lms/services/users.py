"""Users provisioned by an API client, each with an external id in the client's namespace.

A client sees and changes only the users it provisioned (matched by external id), and
none of them once made staff or superuser in Vivabank;
deactivating a user leaves their attempts and marks, and takes away every role
(quizbank.access treats an inactive account as holding none); a client reactivates only
the accounts it deactivated itself, never one deactivated in Vivabank.
"""

import re
import secrets
from typing import Any

from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.http import Http404

from config.exceptions import DomainError
from config.locking import name_lock
from config.text import ONE_LINE_BANNED
from lms.errors import DeactivatedInVivabank, ExternalIdTaken, SiteAdminAccount, UsernameTaken
from lms.models import ExternalIdentity

PROFILE_FIELDS = ("email", "first_name", "last_name", "is_active")
# An external id: no slash (it sits in URLs), no whitespace, nothing a one-line field refuses
# (control characters, C1 ones included, line breaks, bidi formatting). U+FEFF is named since
# the schema's `\s` (ECMAScript's) holds it and Python's does not: both then refuse the same.
EXTERNAL_ID_PATTERN = rf"^[^/\s\ufeff{ONE_LINE_BANNED}]+\Z"


def users_of(namespace: str) -> QuerySet[ExternalIdentity]:
    """The identities of a namespace, with their users, by external id."""
    return ExternalIdentity.objects.filter(namespace=namespace).select_related("user")


def identity_get(*, namespace: str, external_id: str) -> ExternalIdentity:
    """The identity with this external id in the namespace; 404 otherwise."""
    if not re.match(EXTERNAL_ID_PATTERN, external_id):
        raise Http404("No user with this external id.")
    found = users_of(namespace).filter(external_id=external_id).first()
    if found is None:
        raise Http404("No user with this external id.")
    return found


def username_taken(username: str, *, other_than: User | None = None) -> bool:
    """Whether an account (but `other_than`) has this username, ignoring case: 'Alice' and
    'alice' would be two accounts that people, e-mails and rosters cannot tell apart."""
    taken = User.objects.filter(username__iexact=username)
    if other_than is not None:
        taken = taken.exclude(pk=other_than.pk)
    return taken.exists()


def _username_taken_error() -> UsernameTaken:
    return UsernameTaken(
        "This username is taken.",
        fields={"username": ["Already taken (usernames are compared ignoring case)."]},
    )


def free_username(wanted: str) -> str:
    """`wanted` (at most 130 characters kept), or it with a random suffix when an account
    already has it (ignoring case): a made-up username must never collide with one a client
    chose."""
    name = wanted[:130]
    while username_taken(name):
        name = f"{wanted[:130]}-{secrets.token_hex(4)}"
    return name


def _username(namespace: str, external_id: str) -> str:
    return free_username(re.sub(r"[^\w.@+-]", "-", f"{namespace.replace(':', '-')}-{external_id}"))


def refuse_site_admin(user: User) -> None:
    """Staff and superuser accounts are managed in Vivabank only: an outside system that
    provisioned or launched the account may neither change it nor sign in as it."""
    if user.is_staff or user.is_superuser:
        raise SiteAdminAccount(
            "This account is a Vivabank site administrator's: it is managed in Vivabank only."
        )


def _set_password(user: User, password: str | None) -> None:
    if password is None:
        return
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise DomainError("The password is too weak.", fields={"password": exc.messages}) from exc
    user.set_password(password)


@transaction.atomic
def user_create(
    *,
    namespace: str,
    external_id: str,
    username: str = "",
    password: str | None = None,
    **profile: Any,
) -> ExternalIdentity:
    """A new user with this external id (and a password only if one is given)."""
    if username:
        name_lock("username", username)  # unique ignoring case: no index says so
    if users_of(namespace).filter(external_id=external_id).exists():
        raise _external_id_taken_error()
    if username and username_taken(username):
        raise _username_taken_error()
    user = User(username=username or _username(namespace, external_id), **profile)
    user.set_unusable_password()
    _set_password(user, password)
    try:
        with transaction.atomic():  # a savepoint: the same ids created at the same moment
            user.save()
            return ExternalIdentity.objects.create(
                namespace=namespace, external_id=external_id, user=user
            )
    except IntegrityError as exc:
        # A retried create meets its own first try: the external id is the one to name.
        if users_of(namespace).filter(external_id=external_id).exists():
            raise _external_id_taken_error() from exc
        raise _username_taken_error() from exc


def _external_id_taken_error() -> ExternalIdTaken:
    return ExternalIdTaken(
        "A user with this external id exists.", fields={"external_id": ["Already taken."]}
    )


@transaction.atomic
def user_update(
    *, identity: ExternalIdentity, password: str | None = None, **changes: Any
) -> ExternalIdentity:
    """Change a user's profile, password or active flag (never a site administrator's)."""
    user = identity.user
    refuse_site_admin(user)
    if "username" in changes and changes["username"] != user.username:
        name_lock("username", changes["username"])
        if username_taken(changes["username"], other_than=user):
            raise _username_taken_error()
        user.username = changes.pop("username")
    changes.pop("username", None)
    if "is_active" in changes:
        _record_activation(identity, bool(changes["is_active"]))
    for name in PROFILE_FIELDS:
        if name in changes:
            setattr(user, name, changes[name])
    _set_password(user, password)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError as exc:
        raise _username_taken_error() from exc
    return identity


def _record_activation(identity: ExternalIdentity, active: bool) -> None:
    """Who may undo a deactivation: only the client that made it."""
    if active == identity.user.is_active:
        return
    if active and not identity.deactivated_by_client:
        raise DeactivatedInVivabank(
            "This account was deactivated in Vivabank; only its administrators can reactivate it.",
            fields={"is_active": ["Deactivated in Vivabank."]},
        )
    identity.deactivated_by_client = not active
    identity.save(update_fields=["deactivated_by_client"])


def user_deactivate(*, identity: ExternalIdentity) -> ExternalIdentity:
    """Sign the user out of every role; their attempts and marks stay."""
    return user_update(identity=identity, is_active=False)

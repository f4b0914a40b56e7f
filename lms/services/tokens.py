"""API clients and their tokens: issued once in plain text, stored hashed, revocable,
and expiring when issued with a lifetime."""

import hashlib
import secrets
from collections.abc import Iterable
from datetime import timedelta

from django.contrib.auth.models import Permission, User
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from config.scopes import Scope
from lms.models import ApiClient, ApiToken, TokenUse

TOKEN_PREFIX = "vbk_"  # noqa: S105  (a marker, not a secret)


def token_hash(key: str) -> str:
    """The stored form of a token (it has 256 random bits, so a plain SHA-256 suffices)."""
    return hashlib.sha256(key.encode()).hexdigest()


# The longest lifetime a token may be issued with (the admin's form and the command).
MAX_TOKEN_DAYS = 3650


@transaction.atomic
def api_client_create(*, name: str) -> ApiClient:
    """A client with its own service account (no password: it signs in by token only),
    which may create courses; it then holds roles only in courses it created or joined."""
    user = User(username=f"api-client-{secrets.token_hex(6)}", first_name=name[:150])
    user.set_unusable_password()
    user.save()
    user.user_permissions.add(
        Permission.objects.get(codename="add_course", content_type__app_label="quizbank")
    )
    return ApiClient.objects.create(name=name, user=user)


def token_issue(
    *, client: ApiClient, scopes: Iterable[str], lifetime: timedelta | None = None
) -> tuple[ApiToken, str]:
    """A new token and its plain text, which is never stored and cannot be shown again;
    refused after `lifetime` (None: until revoked)."""
    wanted = sorted(set(scopes))
    unknown = [s for s in wanted if s not in Scope.values]
    if unknown:
        raise ValueError(f"unknown scopes: {', '.join(unknown)}")
    if lifetime is not None and lifetime <= timedelta(0):
        raise ValueError("a token's lifetime must be positive")
    key = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        client=client,
        prefix=key[:12],
        key_hash=token_hash(key),
        scopes=wanted,
        expires_at=None if lifetime is None else timezone.now() + lifetime,
    )
    return token, key


def token_revoke(*, token: ApiToken) -> ApiToken:
    """Refuse the token from now on (idempotent)."""
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def live_tokens() -> QuerySet[ApiToken]:
    """The tokens that are neither revoked nor expired."""
    unexpired = Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now())
    return ApiToken.objects.filter(unexpired, revoked_at__isnull=True)


def token_for_key(key: str) -> ApiToken | None:
    """The live token with this plain text, with its client; None if unknown, revoked or
    expired."""
    return live_tokens().select_related("client__user").filter(key_hash=token_hash(key)).first()


def clients_holding(scope: str) -> set[int]:
    """The ids of the clients with a live (unrevoked, unexpired) token that carries `scope`."""
    live = live_tokens().values_list("client_id", "scopes")
    return {client_id for client_id, scopes in live if scope in scopes}


def token_use_record(*, token: ApiToken, method: str, path: str, address: str) -> None:
    """Log one request made with the token."""
    now = timezone.now()
    TokenUse.objects.create(
        # A NUL (%00 in a URL) cannot be stored in PostgreSQL text.
        token=token,
        at=now,
        method=method,
        path=path.replace("\x00", "\ufffd")[:500],
        address=address[:64],
    )
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)

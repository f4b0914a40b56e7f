"""Create API clients, issue their tokens (printed once) and revoke tokens."""

from argparse import ArgumentParser
from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from config.scopes import Scope
from lms.models import ApiClient, ApiToken
from lms.services.tokens import MAX_TOKEN_DAYS, api_client_create, token_issue, token_revoke

MAX_CLIENT_NAME = ApiClient._meta.get_field("name").max_length or 100


class Command(BaseCommand):
    help = (
        "api_client create NAME --scope S... [--days N] | token NAME --scope S... [--days N] "
        "| revoke PREFIX"
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("action", choices=["create", "token", "revoke"])
        parser.add_argument("name", help="The client's name (a token's prefix for revoke).")
        parser.add_argument("--scope", action="append", default=[], choices=Scope.values)
        parser.add_argument(
            "--days", type=int, default=None, help="The token is refused after this many days."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        action, name, scopes = options["action"], options["name"], options["scope"]
        if action == "revoke":
            token = ApiToken.objects.filter(prefix=name).first()
            if token is None:
                raise CommandError(f"no token starts with {name}")
            token_revoke(token=token)
            self.stdout.write(f"revoked {token.prefix}")
            return
        if not scopes:
            raise CommandError("name at least one --scope")
        days = options["days"]
        if days is not None and not 1 <= days <= MAX_TOKEN_DAYS:
            raise CommandError(f"--days must be between 1 and {MAX_TOKEN_DAYS}")
        lifetime = None if days is None else timedelta(days=days)
        # The client and its first token are made together or not at all.
        with transaction.atomic():
            client = self._client(action, name)
            token, key = token_issue(client=client, scopes=scopes, lifetime=lifetime)
        until = (
            f"until {token.expires_at:%Y-%m-%d %H:%M %Z}" if token.expires_at else "until revoked"
        )
        self.stdout.write(f"token for {client.name} ({until}; shown once; store it now): {key}")

    def _client(self, action: str, name: str) -> ApiClient:
        existing = ApiClient.objects.filter(name=name).first()
        if action == "token":
            if existing is None:
                raise CommandError(f"no API client named {name}")
            return existing
        if existing is not None:
            raise CommandError(
                f"an API client named {name} exists; `api_client token {name} --scope ...` "
                "issues it another token"
            )
        if not name.strip() or len(name) > MAX_CLIENT_NAME:
            raise CommandError(f"a client's name is 1 to {MAX_CLIENT_NAME} characters")
        return api_client_create(name=name)

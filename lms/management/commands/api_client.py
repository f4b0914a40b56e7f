"""Create API clients, issue their tokens (printed once) and revoke tokens."""

from argparse import ArgumentParser
from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from config.scopes import Scope
from lms.models import ApiClient, ApiToken
from lms.services.tokens import api_client_create, token_issue, token_revoke


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
        if action == "create":
            client = api_client_create(name=name)
        else:
            client = ApiClient.objects.filter(name=name).first() or self._missing(name)
        if options["days"] is not None and options["days"] < 1:
            raise CommandError("--days must be 1 or more")
        lifetime = None if options["days"] is None else timedelta(days=options["days"])
        token, key = token_issue(client=client, scopes=scopes, lifetime=lifetime)
        until = (
            f"until {token.expires_at:%Y-%m-%d %H:%M %Z}" if token.expires_at else "until revoked"
        )
        self.stdout.write(f"token for {client.name} ({until}; shown once; store it now): {key}")

    def _missing(self, name: str) -> ApiClient:
        raise CommandError(f"no API client named {name}")

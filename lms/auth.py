"""`Authorization: Bearer vbk_...`: an API client's token, beside users' `Token` keys.

A client token authenticates as the client's service account, with the token as
`request.auth` (its `scopes` are checked by config.scopes.ClientScopes).
"""

from django.contrib.auth.models import User
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from config.signin import client_address
from lms.models import ApiToken
from lms.services.tokens import token_for_key, token_use_record


class ApiClientTokenAuthentication(BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword.lower().encode():
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Send `Authorization: Bearer <token>`.")
        try:
            key = parts[1].decode("ascii")
        except UnicodeDecodeError as exc:
            raise exceptions.AuthenticationFailed("Invalid token.") from exc
        token = token_for_key(key)
        if token is None or not token.client.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        token_use_record(
            token=token,
            method=request.method or "",
            path=request.path,
            address=client_address(request),
        )
        return token.client.user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword

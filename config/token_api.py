"""POST /api/auth/token/: a username and password for the user's API token.

A DRF view of ours, so the body goes through the API's JSON parser and errors through
its handler; sign-ins are throttled per username and per address (config/signin.py).
"""

from typing import Any

from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import Throttled
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.exceptions import DomainError
from config.fields import TextOnlyField
from config.signin import SignInThrottle, client_address, signin_begin, signin_end


class SignInFailed(DomainError):
    # "invalid" with non_field_errors, as DRF's obtain_auth_token answered before.
    code = "invalid"


def token_for(*, request: Request, username: str, password: str) -> Token:
    """The user's API token (made on first use); SignInFailed, counted, otherwise."""
    address = client_address(request)
    seconds = signin_begin(username=username, address=address)
    if seconds:
        raise Throttled(wait=seconds)
    user = authenticate(request, username=username, password=password)
    signin_end(username=username, address=address, succeeded=user is not None)
    if user is None:
        message = "Unable to log in with provided credentials."
        raise SignInFailed(message, fields={"non_field_errors": [message]})
    token, _ = Token.objects.get_or_create(user=user)
    return token


class TokenObtainApi(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes = [SignInThrottle]

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        username = TextOnlyField(max_length=150)
        password = TextOnlyField(kind="verbatim", max_length=4096, trim_whitespace=False)

    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        token = TextOnlyField(help_text="Send as `Authorization: Token <token>`.")

    @extend_schema(
        request=InputSerializer, responses=OutputSerializer, operation_id="auth_token", auth=[]
    )
    def post(self, request: Request) -> Response:
        """Exchange a username and password for the user's API token; repeated failures
        lock the username and the address for a while (429 with Retry-After)."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token = token_for(request=request, **data.validated_data)
        return Response(self.OutputSerializer({"token": token.key}).data)

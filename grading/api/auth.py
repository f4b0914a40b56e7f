"""Request helpers shared by the API views."""

from django.contrib.auth.models import User
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request


def signed_in_user(request: Request) -> User:
    """The request's user, narrowed for the type checker (views already require a login)."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user

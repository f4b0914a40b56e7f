"""Who is calling: an API client (by its token) or a person."""

from rest_framework.request import Request

from lms.errors import ClientRequired
from lms.models import ApiClient, ApiToken


def calling_client(request: Request) -> ApiClient | None:
    """The API client whose token signed the request; None for a person."""
    return request.auth.client if isinstance(request.auth, ApiToken) else None


def required_client(request: Request) -> ApiClient:
    """The calling API client; 403 `client_required` for a person's credentials."""
    client = calling_client(request)
    if client is None:
        raise ClientRequired("Only an API client's token may call this.")
    return client


def caller_namespace(request: Request) -> str | None:
    """The external-id namespace of the calling client; None for a person (any)."""
    client = calling_client(request)
    return None if client is None else client.namespace

"""LMS integration errors, each with a stable code."""

from typing import ClassVar

from rest_framework import status

from config.exceptions import DomainError


class ExternalIdTaken(DomainError):
    code = "external_id_taken"
    status_code = status.HTTP_409_CONFLICT


class UnknownExternalId(DomainError):
    code = "unknown_external_id"


class UsernameTaken(DomainError):
    code = "username_taken"
    status_code = status.HTTP_409_CONFLICT


class DeactivatedInVivabank(DomainError):
    code = "deactivated_in_vivabank"
    status_code = status.HTTP_409_CONFLICT


class SiteAdminAccount(DomainError):
    code = "site_admin_account"
    status_code = status.HTTP_403_FORBIDDEN


class ClientRequired(DomainError):
    code = "client_required"
    status_code = status.HTTP_403_FORBIDDEN


class LaunchRefused(DomainError):
    code = "launch_refused"
    status_code: ClassVar[int] = status.HTTP_403_FORBIDDEN  # ToolKeyMissing's is another


class ToolKeyMissing(LaunchRefused):
    """The tool has no signing key (`manage.py rotate_keys` never ran): the operator's to fix."""

    code = "tool_key_missing"
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE


class ScoreNotSent(DomainError):
    code = "score_not_sent"
    status_code = status.HTTP_502_BAD_GATEWAY


class RosterNotFetched(DomainError):
    code = "roster_not_fetched"
    status_code = status.HTTP_502_BAD_GATEWAY


class DeliveryFailed(DomainError):
    code = "delivery_failed"
    status_code = status.HTTP_502_BAD_GATEWAY


class WebhookUrlRefused(DomainError):
    code = "webhook_url_refused"

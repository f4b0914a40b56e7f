"""API clients in the admin: tokens are listed (prefix, scopes, use) and revocable; a new
token is issued with `manage.py api_client token`, which prints it once."""

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from lms.models import ApiClient, ApiToken, ExternalIdentity, LtiCourseGrant, TokenUse


@admin.register(ApiClient)
class ApiClientAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in the stubs
    list_display = ["name", "user", "created_at"]
    readonly_fields = ["user", "created_at"]


@admin.action(description="Revoke the selected tokens")
def revoke(
    modeladmin: "admin.ModelAdmin[ApiToken]", request: HttpRequest, queryset: QuerySet[ApiToken]
) -> None:
    queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in the stubs
    list_display = ["prefix", "client", "scopes", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = ["client", "prefix", "key_hash", "scopes", "created_at", "last_used_at"]
    actions = [revoke]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(TokenUse)
class TokenUseAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in the stubs
    list_display = ["token", "at", "method", "path", "address"]
    list_filter = ["token__client"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(ExternalIdentity)
class ExternalIdentityAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in the stubs
    list_display = ["external_id", "namespace", "user"]
    search_fields = ["external_id", "user__username"]


@admin.register(LtiCourseGrant)
class LtiCourseGrantAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in the stubs
    """Which courses each LTI platform registration may launch users into."""

    list_display = ["registration", "course"]

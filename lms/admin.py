"""API clients in the admin: tokens are listed (prefix, scopes, use) and revocable; a new
token is issued with `manage.py api_client token`, which prints it once. LTI platform
registrations take the platform's JWKS URL or its public keys pasted."""

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from lti_tool.admin import LtiRegistrationAdmin as DjangoLtiRegistrationAdmin
from lti_tool.models import LtiRegistration

from config.exceptions import DomainError
from lms.models import ApiClient, ApiToken, ExternalIdentity, LtiCourseGrant, TokenUse
from lms.services.lti_registry import key_source_error
from lms.services.platform_keys import (
    platform_keys_parse,
    platform_keys_set,
    platform_keys_text,
)


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


class LtiRegistrationForm(forms.ModelForm):  # type: ignore[type-arg]  # generic only in the stubs
    public_keys = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 8, "cols": 80}),
        help_text="Instead of the keyset URL: the platform's public keys, a JWKS document "
        '({"keys": [...]}) or one PEM public key (-----BEGIN PUBLIC KEY-----).',
    )

    class Meta:
        model = LtiRegistration
        fields = [
            "name",
            "uuid",
            "issuer",
            "client_id",
            "audience",
            "auth_url",
            "token_url",
            "keyset_url",
            "is_active",
            "public_key",
            "private_key",
        ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["keyset_url"].required = False
        if self.instance.pk:
            self.fields["public_keys"].initial = platform_keys_text(self.instance)

    def clean_public_keys(self) -> str:
        text = str(self.cleaned_data.get("public_keys") or "").strip()
        if text:
            try:
                platform_keys_parse(text)
            except DomainError as error:
                raise forms.ValidationError(error.message) from error
        return text

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean() or {}
        if "public_keys" in cleaned:
            message = key_source_error(
                keyset_url=cleaned.get("keyset_url") or "", public_keys=cleaned["public_keys"]
            )
            if message:
                raise forms.ValidationError(message)
        return cleaned


admin.site.unregister(LtiRegistration)


@admin.register(LtiRegistration)
class LtiRegistrationAdmin(DjangoLtiRegistrationAdmin):  # type: ignore[misc]  # untyped base
    """django-lti's registration admin, with the platform's keys pasteable."""

    form = LtiRegistrationForm
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "name",
                    "uuid",
                    "issuer",
                    "client_id",
                    "audience",
                    "auth_url",
                    "token_url",
                    "keyset_url",
                    "public_keys",
                    "is_active",
                ]
            },
        ),
        *DjangoLtiRegistrationAdmin.fieldsets[1:],
    ]

    def save_model(
        self, request: HttpRequest, obj: LtiRegistration, form: LtiRegistrationForm, change: bool
    ) -> None:
        super().save_model(request, obj, form, change)
        platform_keys_set(registration=obj, text=form.cleaned_data["public_keys"])

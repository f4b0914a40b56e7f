"""API clients in the admin: added by name, tokens issued on a client's page (shown once),
listed (prefix, scopes, use) and revocable, as `manage.py api_client` does. LTI platform
registrations take the platform's JWKS URL or its public keys pasted."""

from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from lti_tool.admin import LtiRegistrationAdmin as DjangoLtiRegistrationAdmin
from lti_tool.models import LtiRegistration

from config.exceptions import DomainError
from config.scopes import Scope
from lms.models import ApiClient, ApiToken, ExternalIdentity, LtiCourseGrant, TokenUse
from lms.services.lti_registry import key_source_error
from lms.services.platform_keys import (
    platform_keys_parse,
    platform_keys_set,
    platform_keys_text,
)
from lms.services.tokens import MAX_TOKEN_DAYS, api_client_create, token_issue, token_revoke


class TokenIssueForm(forms.Form):
    scopes = forms.MultipleChoiceField(
        choices=Scope.choices,
        widget=forms.CheckboxSelectMultiple,
        help_text="What the token may do; the client's course roles still decide where.",
    )
    lifetime_days = forms.IntegerField(
        min_value=1,
        max_value=MAX_TOKEN_DAYS,
        required=False,
        help_text="Refused after this many days; empty: until revoked.",
    )


@admin.register(ApiClient)
class ApiClientAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in the stubs
    """Clients are added by name (their service account is made for them); a client's
    page issues tokens, each shown once."""

    list_display = ["name", "user", "created_at"]
    fields = ["name", "user", "created_at"]
    readonly_fields = ["user", "created_at"]
    change_form_template = "admin/lms/apiclient/change_form.html"

    def save_model(
        self, request: HttpRequest, obj: ApiClient, form: "forms.ModelForm[ApiClient]", change: bool
    ) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        made = api_client_create(name=obj.name)
        obj.pk, obj.user, obj.created_at = made.pk, made.user, made.created_at

    def get_urls(self) -> list[URLPattern]:
        issue = self.admin_site.admin_view(self.token_issue_view)
        mine = [path("<int:client_id>/token/", issue, name="lms_apiclient_token")]
        return mine + super().get_urls()

    def token_issue_view(self, request: HttpRequest, client_id: int) -> HttpResponse:
        """Pick scopes; the new token is shown on the answer to this POST and never again."""
        client = get_object_or_404(ApiClient, pk=client_id)
        if not self.has_change_permission(request, client):
            raise PermissionDenied
        form = TokenIssueForm(request.POST if request.method == "POST" else None)
        context = {**self.admin_site.each_context(request), "client": client, "form": form}
        context["opts"], context["title"] = self.opts, f"Issue a token for {client}"
        if not form.is_valid():
            return TemplateResponse(request, "admin/lms/apiclient/token_issue.html", context)
        days = form.cleaned_data["lifetime_days"]
        lifetime = None if days is None else timedelta(days=days)
        token, key = token_issue(
            client=client, scopes=form.cleaned_data["scopes"], lifetime=lifetime
        )
        self.log_change(
            request, client, f"Issued token {token.prefix}… ({', '.join(token.scopes)})"
        )
        context.update(token=token, key=key, title=f"New token for {client}")
        return TemplateResponse(request, "admin/lms/apiclient/token_issued.html", context)


@admin.action(description="Revoke the selected tokens")
def revoke(
    modeladmin: "admin.ModelAdmin[ApiToken]", request: HttpRequest, queryset: QuerySet[ApiToken]
) -> None:
    live = list(queryset.filter(revoked_at__isnull=True))
    for token in live:
        token_revoke(token=token)
    modeladmin.message_user(request, f"Revoked {len(live)} token(s); they are refused from now on.")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in the stubs
    list_display = [
        "prefix",
        "client",
        "scopes",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
    ]
    readonly_fields = [
        "client",
        "prefix",
        "key_hash",
        "scopes",
        "created_at",
        "expires_at",
        "last_used_at",
    ]
    list_filter = ["client"]
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

    list_display = ["registration", "course", "context_id"]


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

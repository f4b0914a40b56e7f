"""The API client token in the OpenAPI schema (`clientToken`, an HTTP bearer scheme)."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiClientTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]  # untyped base
    target_class = "lms.auth.ApiClientTokenAuthentication"
    name = "clientToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API client's token (`vbk_...`). It reaches only operations "
            "that list a scope in `x-client-scopes`, and only with that scope "
            "(403 `scope_missing` otherwise).",
        }

"""Schema generation: component names for nested serializers, and every operation's
error responses in the one error shape (the `Error` component)."""

from typing import Any, Literal

from django.core.validators import RegexValidator
from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers
from rest_framework.permissions import AllowAny

from config.fields import TextOnlyField
from config.scopes import scopes_needed
from config.text import schema_pattern

_ERRORS: dict[int, str] = {
    400: "Malformed JSON, or invalid fields, filters or ordering; `fields` names each "
    "(e.g. `answer.text`); or more query parameters than the server reads (`too_many_fields`).",
    401: "No valid credentials; see `WWW-Authenticate`.",
    403: "Signed in, but your role does not allow this (or an API client's token lacks "
    "the operation's scope: `scope_missing`).",
    404: "No such object among those you may see, or no such page.",
    409: "The current state does not allow this (e.g. `stale_version`, `deadline_passed`).",
    412: "`If-Match` names a version the object no longer has (`quiz_changed`): it changed "
    "since you read it, and nothing was saved.",
    411: "A body sent without `Content-Length` (chunked); send it with its length "
    "(`length_required`).",
    413: "The body, or the answer in it, is over its size limit.",
    415: "The body is not JSON, or its `Content-Type` names a charset that decodes no text.",
    429: "Too many requests; retry after `Retry-After` seconds.",
    503: "Not now: the database is restarting or read-only (`database_unavailable`, "
    "`database_read_only`), or no code runner is free (`runner_busy`); nothing was changed. "
    "Retry after `Retry-After` seconds.",
}
_HEADERS: dict[int, dict[str, Any]] = {
    401: {"WWW-Authenticate": {"schema": {"type": "string"}, "description": "`Token`"}},
    429: {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait."}},
    503: {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait."}},
}
_WRITES = ("POST", "PUT", "PATCH", "DELETE")


class ErrorDetailSerializer(serializers.Serializer[dict[str, Any]]):
    code = serializers.CharField(help_text="Stable code: `not_found`, `stale_version`, ...")
    message = serializers.CharField(help_text="For people; may change.")
    fields = serializers.DictField(  # type: ignore[assignment]  # DRF's metaclass pops fields
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Messages by field path (`answer.text`, `levels[0]`); empty otherwise.",
    )


class ErrorSerializer(serializers.Serializer[dict[str, Any]]):
    """Every error the API returns: `{"error": {"code", "message", "fields"}}`."""

    error = ErrorDetailSerializer()


class VivabankAutoSchema(AutoSchema):
    """`AttemptResultApi.OutputSerializer` becomes the component `AttemptResultOutput`, so
    the house style of nested Input/Output serializers never collides in the schema; and
    each operation lists the errors it can return."""

    def get_serializer_name(
        self, serializer: Any, direction: Literal["request", "response"]
    ) -> str:
        name = super().get_serializer_name(serializer, direction)
        qualname = type(serializer).__qualname__
        if "." not in qualname:
            return name
        outer, inner = qualname.rsplit(".", 2)[-2:]
        return outer.removesuffix("Api") + inner.removesuffix("Serializer")

    def _map_serializer_field(
        self, field: Any, direction: Any, bypass_extensions: bool = False
    ) -> dict[str, Any]:
        """A text field says in requests what it refuses: blank text (`minLength: 1`) and
        the characters its kind of text may not hold (`pattern`); responses are left as
        they are."""
        # drf-spectacular's AutoSchema carries no type hints.
        schema: dict[str, Any] = super()._map_serializer_field(  # type: ignore[no-untyped-call]
            field, direction, bypass_extensions
        )
        refuses_blank = (
            isinstance(field, serializers.CharField)
            and not field.allow_blank
            and not field.read_only
        )
        is_text = schema.get("type") == "string"
        if direction == "request" and refuses_blank and is_text and not schema.get("minLength"):
            schema["minLength"] = 1
        # A field with its own pattern (a slug, a RegexField) keeps it: OpenAPI 3.0 takes one.
        own_pattern = any(isinstance(v, RegexValidator) for v in field.validators)
        held_to_a_rule = isinstance(field, TextOnlyField) and field.kind != "verbatim"
        if direction == "request" and held_to_a_rule and is_text and not own_pattern:
            schema["pattern"] = schema_pattern(one_line=field.kind == "one_line")
        return schema

    def _map_basic_serializer(self, serializer: Any, direction: Any) -> dict[str, Any]:
        """A request serializer's object, with what no one field of it can say (that one of
        several fields must be named, say) from its `schema_extra`."""
        schema: dict[str, Any] = super()._map_basic_serializer(  # type: ignore[no-untyped-call]
            serializer, direction
        )
        extra: dict[str, Any] = getattr(serializer, "schema_extra", {})
        if direction == "request":
            schema["properties"].update(extra.get("properties", {}))
            schema.update({key: value for key, value in extra.items() if key != "properties"})
        return schema

    def _error_statuses(self) -> list[int]:
        signed_in = bool(self.get_auth())
        writes = self.method in _WRITES and signed_in
        body = self.method in _WRITES and self.get_request_serializer() is not None
        open_to_all = all(isinstance(p, AllowAny) for p in self.view.get_permissions())
        by_id = "{" in self.path or hasattr(self.view, "paginator")  # an id, or a page number
        wanted = {
            400: True,
            401: signed_in,
            403: not open_to_all,
            404: by_id or getattr(self.view, "answers_404", False),
            409: writes,
            412: any(
                getattr(p, "name", None) == "If-Match" for p in self.get_override_parameters()
            ),
            411: body,
            413: body,
            415: body,
            429: bool(self.view.get_throttles()) or getattr(self.view, "answers_429", False),
            503: True,
        }
        return [status for status, applies in wanted.items() if applies]

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        for status in self._error_statuses():
            if str(status) in responses:
                continue
            response = self._get_response_for_code(  # type: ignore[no-untyped-call]  # untyped
                ErrorSerializer, str(status), ["application/json"], direction
            )
            response["description"] = _ERRORS[status]
            if status in _HEADERS:
                response["headers"] = _HEADERS[status]
            responses[str(status)] = response
        return responses

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        """The operation, with the scope an API client token needs in `x-client-scopes`."""
        operation: dict[str, Any] | None = super().get_operation(*args, **kwargs)
        scopes = [str(scope) for scope in scopes_needed(self.view, self.method)]
        if operation is not None and scopes:
            operation["x-client-scopes"] = scopes
            named = " or ".join(f"`{scope}`" for scope in scopes)
            note = f"API client tokens need the scope {named}."
            operation["description"] = f"{operation.get('description', '')}\n\n{note}".strip()
        return operation

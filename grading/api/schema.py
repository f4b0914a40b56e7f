"""Schema generation: name nested Input/Output serializers after their view."""

from typing import Any, Literal

from drf_spectacular.openapi import AutoSchema


class VivabankAutoSchema(AutoSchema):
    """`AttemptResultApi.OutputSerializer` becomes the component `AttemptResultOutput`, so
    the house style of nested Input/Output serializers never collides in the schema."""

    def get_serializer_name(
        self, serializer: Any, direction: Literal["request", "response"]
    ) -> str:
        name = super().get_serializer_name(serializer, direction)
        qualname = type(serializer).__qualname__
        if "." not in qualname:
            return name
        outer, inner = qualname.rsplit(".", 2)[-2:]
        return outer.removesuffix("Api") + inner.removesuffix("Serializer")

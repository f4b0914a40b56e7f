"""Strict list filters: a value a filter cannot use is a 400 naming it, never ignored.

`StrictFilterBackend` builds every list's FilterSet from `BoundedFilterSet`, so a
foreign key filters by a bounded id (no lookup of the row, so a filter never tells
whether an object exists), a choice must be one of its choices and text must be
storable; `StrictOrderingFilter` refuses an ordering it does not offer.
"""

import re
from collections.abc import Iterable
from typing import Any

from django import forms
from django.db import models
from django.db.models import QuerySet
from django_filters import rest_framework as filters  # type: ignore[import-untyped]  # no stubs
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework.exceptions import ValidationError
from rest_framework.filters import OrderingFilter
from rest_framework.request import Request
from rest_framework.views import APIView

from config.fields import BIGINT_MAX, ID_SCHEMA


@extend_schema_field(ID_SCHEMA)
class IdFilter(filters.Filter):  # type: ignore[misc]  # django-filter is untyped
    """An object's id: a whole number from 0 to BIGINT_MAX."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 0)
        kwargs.setdefault("max_value", BIGINT_MAX)
        super().__init__(*args, **kwargs)


class TrueFalseField(forms.TypedChoiceField):
    """Exactly `true` or `false`, as OpenAPI writes a boolean in a query string."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.update(
            choices=[("true", "true"), ("false", "false")],
            empty_value=None,
            coerce=lambda value: value == "true",
        )
        super().__init__(**kwargs)


@extend_schema_field(OpenApiTypes.BOOL)
class StrictBooleanFilter(filters.BooleanFilter):  # type: ignore[misc]  # django-filter is untyped
    """A boolean filter that refuses anything but true and false (the stock one ignores it)."""

    field_class = TrueFalseField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # The stock widget maps anything but true/false to "no filter" before validation.
        kwargs["widget"] = forms.TextInput
        super().__init__(*args, **kwargs)


_RELATION = {"filter_class": IdFilter}


class BoundedFilterSet(filters.FilterSet):  # type: ignore[misc]  # django-filter is untyped
    """The base of every list's FilterSet (declared or built from `filterset_fields`)."""

    FILTER_DEFAULTS = {
        **filters.FilterSet.FILTER_DEFAULTS,
        models.AutoField: _RELATION,
        models.BigAutoField: _RELATION,
        models.ForeignKey: _RELATION,
        models.OneToOneField: _RELATION,
        models.BooleanField: {"filter_class": StrictBooleanFilter},
    }


class StrictFilterBackend(filters.DjangoFilterBackend):  # type: ignore[misc]  # untyped
    filterset_base = BoundedFilterSet


class StrictOrderingFilter(OrderingFilter):
    """`?ordering=` with a field the list does not offer is a 400 (the stock one ignores it)."""

    def remove_invalid_fields(
        self, queryset: QuerySet[Any], fields: Iterable[str], view: APIView, request: Request
    ) -> list[str]:
        asked = [field for field in fields if field]
        valid = super().remove_invalid_fields(queryset, asked, view, request)
        if len(valid) != len(asked):
            offered = sorted(name for name, _ in self.get_valid_fields(queryset, view))
            raise ValidationError(
                {self.ordering_param: [f"Order by one or more of: {', '.join(offered)}."]}
            )
        return list(valid)

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        """The parameter with the orderings the list offers, so the schema promises only
        what `remove_invalid_fields` takes."""
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        offered = getattr(view, "ordering_fields", None)
        if not isinstance(offered, list | tuple):
            return parameters
        one = f"-?({'|'.join(re.escape(name) for name in offered)})"
        for parameter in parameters:
            parameter["schema"]["pattern"] = f"^{one}(,{one})*$"
            parameter["description"] = (
                f"Order by one or more of {', '.join(offered)}, comma-separated; "
                "a leading `-` reverses one."
            )
        return parameters

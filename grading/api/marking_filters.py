"""Filters of the marking queue: quiz, marking status, second mark awaited, flagged."""

from collections.abc import Callable
from typing import Any

from django.db.models import Q, QuerySet
from django_filters import rest_framework as filters  # type: ignore[import-untyped]  # no stubs

from config.filters import BoundedFilterSet, IdFilter, StrictBooleanFilter
from grading.models import Response
from grading.models.marking import MarkingStatus

Method = Callable[[QuerySet[Response], str, Any], QuerySet[Response]]


def _status(status: str) -> Q:
    if status == MarkingStatus.UNMARKED:
        return Q(marking__isnull=True) | Q(marking__status=status)
    return Q(marking__status=status)


def _in_status(qs: QuerySet[Response], name: str, value: str) -> QuerySet[Response]:
    return qs.filter(_status(value))


def _has_status(status: str) -> Method:
    def apply(qs: QuerySet[Response], name: str, value: bool) -> QuerySet[Response]:
        return qs.filter(_status(status)) if value else qs.exclude(_status(status))

    return apply


class MarkingQueueFilter(BoundedFilterSet):
    """Filters over `marking_queue`; an answer nobody has marked yet has no marking row."""

    quiz = IdFilter(field_name="attempt__quiz", help_text="Only answers of this quiz.")
    status = filters.ChoiceFilter(
        choices=MarkingStatus.choices, method=_in_status, help_text="Marking status."
    )
    needs_second_mark = StrictBooleanFilter(
        method=_has_status(MarkingStatus.AWAITING_SECOND),
        help_text="Waiting for a blind second mark.",
    )
    flagged = StrictBooleanFilter(
        method=_has_status(MarkingStatus.FLAGGED),
        help_text="Markers disagree beyond the threshold.",
    )

    class Meta:
        model = Response
        fields = ["quiz", "status", "needs_second_mark", "flagged"]

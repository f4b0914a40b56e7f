"""Reading the one row a unique lookup names."""

from typing import TypeVar

from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)


def unique_or_none(rows: QuerySet[M]) -> M | None:
    """The row of a lookup that matches at most one (a primary key, a unique job id), or None.

    `.first()` would order the rows first, and Django compiles that ORDER BY again on every
    call (about 0.3 ms of Python); a lookup that finds at most one row needs no order.
    """
    found = list(rows.order_by()[:1])
    return found[0] if found else None

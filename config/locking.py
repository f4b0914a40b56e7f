"""Row locks that lock only the rows asked for, in the mode that lets inserts go on.

`select_for_update()` without `of` also locks every row a join brings in: a `select_related`,
or an ordering through a foreign key (the models order by the key's column, `attempt_id`, so
their default ordering joins nothing; an `order_by("attempt__quiz")` would). Those shared
rows are the ones every attempt start points at, and the KEY SHARE lock an insert takes on
the row its foreign key names waits for FOR UPDATE: a start and an autosave then wait for
each other and PostgreSQL aborts one ("deadlock detected ... in relation quizbank_quiz").
FOR NO KEY UPDATE of the row itself still excludes every other writer of that row, and lets
rows that point at it be inserted.
"""

from typing import TypeVar

from django.db import connection
from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)


def for_update(model: type[M]) -> QuerySet[M]:
    """`model`'s rows, locked FOR NO KEY UPDATE when read (inside a transaction); rows of the
    other tables the query joins are read, never locked."""
    return model._default_manager.select_for_update(no_key=True, of=("self",))


def name_lock(namespace: str, name: str) -> None:
    """Hold, until the transaction ends, a lock on `name` (ignoring case) within `namespace`:
    for a rule no unique index keeps, such as usernames unique ignoring case, so that a check
    and the write after it go one writer at a time. PostgreSQL only: SQLite's IMMEDIATE
    transactions already let one writer in at a time."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtext(%s), hashtext(lower(%s)))", [namespace, name]
        )

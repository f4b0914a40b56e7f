"""Commits that need not wait for the disk.

On PostgreSQL a commit waits until its WAL is flushed to disk (3–5 ms each on one of this
project's machines, 0.2 ms on another, docs/benchmarks.md; milliseconds on a disk that truly
flushes), and a graded code answer passes through several small transactions on its way.
One whose loss in a crash of PostgreSQL itself is harmless (a retry, a redelivery or the
sweeper writes it again) may skip the wait: it is visible to every other session at once,
reaches the disk within the WAL writer's delay (200 ms), and any later ordinary commit
flushes it first, since the WAL is written in order.
"""

from django.db import connection


def commit_without_waiting_for_disk() -> None:
    """Inside a transaction: its commit returns before its WAL is on disk (PostgreSQL only;
    elsewhere nothing changes)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")

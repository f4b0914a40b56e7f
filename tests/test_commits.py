"""Which transactions skip the wait for the disk at commit: the runner's job records and the
"running" mark may, a grade may not."""

from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from config.commits import commit_without_waiting_for_disk
from runner.records import job_record_claim, job_record_finish

SKIPS_THE_WAIT = "SET LOCAL synchronous_commit TO OFF"


def _synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return str(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
def test_only_the_marked_transaction_commits_without_waiting_for_the_disk() -> None:
    with transaction.atomic():
        commit_without_waiting_for_disk()
        inside = _synchronous_commit()

    assert (inside, _synchronous_commit()) == ("off", "on")


@pytest.mark.django_db
def test_the_runners_job_records_skip_the_wait() -> None:
    result: dict[str, Any] = {"job_id": "job-1", "status": "ok"}
    with CaptureQueriesContext(connection) as queries:
        job_record_claim(job_id="job-1", kind="grade", poisoned=lambda _: result)
        job_record_finish(job_id="job-1", kind="grade", result=result, score=1.0)

    assert [q["sql"] for q in queries].count(SKIPS_THE_WAIT) == 2

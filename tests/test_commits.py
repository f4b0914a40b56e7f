"""Which transactions skip the wait for the disk at commit: those whose loss in a crash of
PostgreSQL is made good by a retry, a redelivery or the sweeper (the runner's job records, the
"running" mark, a code answer's grade); never an answer, a submit or an examiner's mark."""

from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from config.commits import commit_without_waiting_for_disk
from runner.models import JobRecord, JobState
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


@pytest.mark.django_db
def test_a_redelivered_job_is_counted_and_its_first_result_kept() -> None:
    first: dict[str, Any] = {"job_id": "job-2", "status": "ok", "score": 1.0}
    assert job_record_claim(job_id="job-2", kind="grade", poisoned=lambda _: first) is None
    assert job_record_claim(job_id="job-2", kind="grade", poisoned=lambda _: first) is None
    assert job_record_finish(job_id="job-2", kind="grade", result=first, score=1.0) == first
    later = {**first, "score": 0.0}
    assert job_record_finish(job_id="job-2", kind="grade", result=later, score=0.0) == first
    assert job_record_claim(job_id="job-2", kind="grade", poisoned=lambda _: later) == first

    record = JobRecord.objects.get(job_id="job-2")
    assert (record.deliveries, record.score, record.result) == (3, 1.0, first)


@pytest.mark.django_db
def test_a_result_without_a_claim_is_still_stored() -> None:
    result: dict[str, Any] = {"job_id": "job-3", "status": "error"}
    assert job_record_finish(job_id="job-3", kind="run", result=result) == result
    record = JobRecord.objects.get(job_id="job-3")
    assert (record.kind, record.state, record.status) == ("run", JobState.FINISHED, "error")

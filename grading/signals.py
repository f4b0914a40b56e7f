"""Mark a code response `running` when a worker starts its grading job.

The runner queues each job with the job id as the Celery task id, and every
job id of a response starts with JOB_PREFIX; a worker's `task_prerun` for
such an id is the moment the answer starts running.
"""

from typing import Any

from celery.signals import task_prerun

from grading.services.code import JOB_PREFIX, code_result_mark_running


def _on_task_prerun(task_id: str | None = None, **_: Any) -> None:
    if task_id and task_id.startswith(JOB_PREFIX):
        code_result_mark_running(job_id=task_id)


def connect() -> None:
    task_prerun.connect(_on_task_prerun, weak=False, dispatch_uid="grading-mark-running")

"""The Celery application shared by the web tier (to enqueue) and the workers."""

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun
from django.db import connections
from kombu import Queue
from kombu.transport import TRANSPORT_ALIASES

import config.logging  # noqa: F401  (connects the task signals that set the logged job id)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# `filesystem://` (make run's broker) writes each message whole or not at all; by URL scheme,
# so an app moved to redis:// uses Redis (an explicit broker_transport would override it).
TRANSPORT_ALIASES["filesystem"] = "config.broker_files:Transport"

app = Celery("vivabank")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    task_ignore_result=True,
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_default_queue="default",
    task_queues=(Queue("default"), Queue("cpu"), Queue("gpu")),
    broker_connection_retry_on_startup=True,
    # Django's LOGGING (JSON, with ids) applies in workers too.
    worker_hijack_root_logger=False,
    # Task events for `celery events` and Flower: received, started, succeeded, failed, retried.
    worker_send_task_events=True,
    # Not `task-sent`: it was a second Redis publish inside every submit, before the worker
    # could see the job, and a job's `task-received` follows it within a millisecond.
    task_send_sent_event=False,
    # Celery's Django fix-up closes the database connection before and after every task
    # unless this is set, so each task paid a new PostgreSQL connection (the grading job's
    # claim: 10.6 ms against 2.6 ms, docs/benchmarks.md); the hooks below apply Django's rule.
    CELERY_DB_REUSE_MAX=1_000_000,
)
app.autodiscover_tasks()


@task_prerun.connect(dispatch_uid="vivabank-db-connections-before")
@task_postrun.connect(dispatch_uid="vivabank-db-connections-after")
def _database_connections_as_the_web_tier(task: Any = None, **_: Any) -> None:
    """Keep a task's connection as a request keeps it: for CONN_MAX_AGE, checked before reuse
    (CONN_HEALTH_CHECKS), dropped after an error; with CONN_MAX_AGE=0 (pgbouncer) closed.
    A task run eagerly (in the caller's process) is left alone, as Celery's fix-up leaves
    it, and so is a connection inside a transaction."""
    if task is not None and getattr(task.request, "is_eager", False):
        return
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:  # never under a transaction still open
            connection.close_if_unusable_or_obsolete()

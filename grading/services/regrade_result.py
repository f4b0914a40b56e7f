"""Apply the runner's verdict on a regraded code answer, once per job id."""

from datetime import datetime
from typing import Any

from django.db import transaction

from grading.models.regrade import RegradeItem, RegradeItemStatus, RegradeRun
from grading.services.code_results import code_feedback
from grading.services.regrade_score import regrade_item_fail, regrade_score_set, response_lock


def regrade_result_apply(*, payload: dict[str, Any], now: datetime) -> bool:
    """Store the new score of job `payload["job_id"]`; False if unknown or already applied.

    A runner failure (`internal`) keeps the old score and counts the item as failed.
    """
    row = RegradeItem.objects.filter(job_id=str(payload.get("job_id", ""))).values_list(
        "pk", "response_id", "run_id"
    )
    found = row.first()
    if found is None:
        return False
    item_id, response_id, run_id = found
    with transaction.atomic():
        response = response_lock(response_id)
        item = RegradeItem.objects.select_for_update().get(pk=item_id)
        if item.status != RegradeItemStatus.PENDING:
            return False
        if payload.get("status") == "internal":
            message = str(payload.get("message", "")) or "The runner could not grade this answer."
            regrade_item_fail(run_id=run_id, item=item, message=message, now=now)
            return True
        run = RegradeRun.objects.select_related("created_by", "target_version").get(pk=run_id)
        score = max(0.0, min(1.0, float(payload.get("score", 0.0))))
        regrade_score_set(run=run, item=item, response=response, score=score,
                          feedback=code_feedback(payload), now=now)  # fmt: skip
    return True

"""Apply the runner's verdict to a code response, once per job id."""

from datetime import datetime
from typing import Any

from django.db import transaction

from grading.models import Attempt, Response, ResponseStatus
from grading.services.attempt_totals import attempt_refresh_total
from runner import api as runner_api

_OUTPUT_CAP = 4000
_WAITING = (ResponseStatus.QUEUED, ResponseStatus.RUNNING)


def _case_feedback(case: dict[str, Any]) -> dict[str, Any]:
    if case.get("hidden"):
        # Only the runner's fixed phrases (which kind of check failed) pass, never values;
        # the case's name could describe its inputs, so it is replaced too.
        message = case.get("message", "")
        shown = message if message in runner_api.HIDDEN_CASE_MESSAGES else ""
        passed = bool(case.get("passed"))
        return {"name": "hidden case", "hidden": True, "passed": passed, "message": shown}
    keys = ("name", "passed", "weight", "message", "max_abs_error", "max_rel_error")
    return {key: case.get(key) for key in keys}


def code_feedback(payload: dict[str, Any]) -> dict[str, Any]:
    """What a student may see of a grading result: no reference output, hidden cases masked."""
    return {
        "status": str(payload.get("status", "")),
        "message": str(payload.get("message", ""))[:_OUTPUT_CAP],
        "stdout": str(payload.get("stdout", ""))[:_OUTPUT_CAP],
        "stderr": str(payload.get("stderr", ""))[:_OUTPUT_CAP],
        "cases": [_case_feedback(case) for case in payload.get("cases", [])],
    }


def _locked_response(job_id: str) -> Response | None:
    attempt_id = Response.objects.filter(job_id=job_id).values_list("attempt_id", flat=True).first()
    if attempt_id is None:
        return None
    # Attempt first, then response: the same order as submit, so totals never race.
    Attempt.objects.select_for_update(of=("self",)).get(pk=attempt_id)
    return Response.objects.select_for_update().filter(job_id=job_id).first()


def code_result_apply(*, payload: dict[str, Any], now: datetime) -> bool:
    """Store the verdict of job `payload["job_id"]`; False if unknown or already applied."""
    with transaction.atomic():
        response = _locked_response(str(payload.get("job_id", "")))
        if response is None or response.status not in _WAITING:
            return False
        if payload.get("status") == "internal":
            response.status, response.score = ResponseStatus.ERROR, None
        else:
            response.status = ResponseStatus.GRADED
            response.score = max(0.0, min(1.0, float(payload.get("score", 0.0))))
        response.feedback = code_feedback(payload)
        response.graded_at = now
        response.save(update_fields=["status", "score", "feedback", "graded_at"])
        attempt_refresh_total(attempt=response.attempt, now=now)
    return True


def code_result_mark_running(*, job_id: str) -> bool:
    """queued -> running when the runner picks the job up."""
    updated = Response.objects.filter(job_id=job_id, status=ResponseStatus.QUEUED).update(
        status=ResponseStatus.RUNNING
    )
    return updated > 0

""" "Run" on the quiz page: queue the student's code in the sandbox and return a job id at
once (202); the page polls the job until its output is there. The same limits and handles as
the API's queued runs (grading/api/views_code.py), session-signed like the page. Both
endpoints are in the OpenAPI schema (tag `code-runs`)."""

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from config.fields import TextOnlyField
from grading.api.views_code import (
    JOB_PARAMETER,
    POLL_RESPONSES,
    CodeRunQueuedSerializer,
    code_run_polled,
    code_run_queued,
)


class CodeRunStartPage(APIView):
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "code_run"

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        code = TextOnlyField(
            kind="verbatim", trim_whitespace=False, help_text="Python source to run."
        )

    @extend_schema(
        request=InputSerializer,
        responses={202: CodeRunQueuedSerializer},
        operation_id="code_run_start",
    )
    def post(self, request: Request) -> Response:
        """Queue the source for a worker to run in the sandbox (no grading); 202 with the job
        id to poll, at once."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return code_run_queued(request, data.validated_data["code"])


class CodeRunResultPage(APIView):
    @extend_schema(
        parameters=[JOB_PARAMETER], responses=POLL_RESPONSES, operation_id="code_run_result"
    )
    def get(self, request: Request, job_id: str) -> Response:
        """`{"finished": false}` while the job waits or runs; then its output. Only the
        user who started the job may read it (404 for anyone else)."""
        return code_run_polled(request, job_id)

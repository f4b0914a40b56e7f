""" "Run" on the quiz page: queue the student's code in the sandbox and return a job id at
once (202); the page polls the job until its output is there. The same limits, handles and
refusals as the API's queued runs (grading/api/views_code.py): a run is for a code question of
the page's attempt. Session-signed like the page; both endpoints are in the OpenAPI schema
(tag `code-runs`)."""

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from grading.api.views_code import (
    JOB_PARAMETER,
    POLL_RESPONSES,
    CodeRunQueuedSerializer,
    CodeRunRequestSerializer,
    CodeRunStartView,
    code_run_polled,
    code_run_queued,
)


class CodeRunStartPage(CodeRunStartView):
    @extend_schema(
        request=CodeRunRequestSerializer,
        responses={202: CodeRunQueuedSerializer},
        operation_id="code_run_start",
    )
    def post(self, request: Request) -> Response:
        """Queue the source for a worker to run in the sandbox (no grading), for a code
        question of the student's own open attempt (refused as `POST /api/code-runs/`
        refuses); 202 with the job id to poll, at once."""
        data = CodeRunRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        self.run_allowed(request, data.validated_data)
        return code_run_queued(request, data.validated_data["code"])


class CodeRunResultPage(APIView):
    @extend_schema(
        parameters=[JOB_PARAMETER], responses=POLL_RESPONSES, operation_id="code_run_result"
    )
    def get(self, request: Request, job_id: str) -> Response:
        """`{"finished": false}` while the job waits or runs; then its output. Only the
        user who started the job may read it (404 for anyone else)."""
        return code_run_polled(request, job_id)

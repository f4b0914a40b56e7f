""" "Run" on the quiz page: queue the student's code in the sandbox and return a job id at
once (202); the page polls the job until its output is there. The same limits as the API's
code run (size, GRADING_CODE_RUN_RATE per user); a job is readable only by its starter.
Both endpoints are in the OpenAPI schema (tag `code-runs`), session-signed like the page."""

from dataclasses import asdict
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from grading.api.views_code import CodeRunApi
from grading.errors import AnswerTooLarge
from quizbank.access import user_id
from runner import api as runner_api

_OWNER_S = 3600
JOB_ID_MAX = 64  # "run-" and a UUID; longer ids are no job's, and too long for some caches


def _owner_key(job_id: str) -> str:
    return f"web:code-run:{job_id}"


class CodeRunStartPage(APIView):
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "code_run"

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        code = serializers.CharField(trim_whitespace=False, help_text="Python source to run.")

    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        job = serializers.CharField(help_text="The job id: poll `/code-runs/{job}/` for output.")

    @extend_schema(
        request=InputSerializer,
        responses={202: OutputSerializer},
        operation_id="code_run_start",
    )
    def post(self, request: Request) -> Response:
        """Queue the source for a worker to run in the sandbox (no grading); 202 with the job
        id to poll, at once."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        source: str = data.validated_data["code"]
        limit = int(settings.GRADING_MAX_ANSWER_BYTES)
        if len(source.encode()) > limit:
            raise AnswerTooLarge(f"The source is over the limit of {limit} bytes.")
        job_id = runner_api.start_run(source, runner_api.Limits(time_s=5.0))
        cache.set(_owner_key(job_id), user_id(request.user), _OWNER_S)
        body = self.OutputSerializer({"job": job_id}).data
        return Response(body, status=status.HTTP_202_ACCEPTED)


class CodeRunResultPage(APIView):
    # `finished` is a one-value choice in each shape so that a reply matches exactly one.
    class PendingSerializer(serializers.Serializer[dict[str, Any]]):
        finished = serializers.ChoiceField(choices=[False], help_text="The job has not finished.")

    class FinishedSerializer(CodeRunApi.OutputSerializer):
        finished = serializers.ChoiceField(choices=[True], help_text="The run's output follows.")

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "job_id",
                {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$", "maxLength": JOB_ID_MAX},
                OpenApiParameter.PATH,
                description="The id POST /code-runs/ gave.",
            )
        ],
        responses=PolymorphicProxySerializer(
            component_name="CodeRunPoll",
            serializers=[PendingSerializer, FinishedSerializer],
            resource_type_field_name=None,
        ),
        operation_id="code_run_result",
    )
    def get(self, request: Request, job_id: str) -> Response:
        """`{"finished": false}` while the job waits or runs; then its output. Only the
        user who started the job may read it (404 for anyone else)."""
        if len(job_id) > JOB_ID_MAX or cache.get(_owner_key(job_id)) != user_id(request.user):
            raise Http404("No such run.")
        result = runner_api.run_result(job_id)
        if result is None:
            return Response(self.PendingSerializer({"finished": False}).data)
        return Response(self.FinishedSerializer({"finished": True, **asdict(result)}).data)

""" "Run" on the quiz page: queue the student's code in the sandbox and return a job id at
once (202); the page polls the job until its output is there. The same limits as the API's
code run (size, GRADING_CODE_RUN_RATE per user); a job is readable only by its starter."""

from dataclasses import asdict
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import Http404
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from grading.errors import AnswerTooLarge
from quizbank.access import user_id
from runner import api as runner_api

_OWNER_S = 3600


def _owner_key(job_id: str) -> str:
    return f"web:code-run:{job_id}"


class CodeRunStartPage(APIView):
    schema = None  # a page endpoint, not part of the documented API
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "code_run"

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        code = serializers.CharField(trim_whitespace=False)

    def post(self, request: Request) -> Response:
        """Queue the code; 202 with the job id to poll."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        source: str = data.validated_data["code"]
        limit = int(settings.GRADING_MAX_ANSWER_BYTES)
        if len(source.encode()) > limit:
            raise AnswerTooLarge(f"The source is over the limit of {limit} bytes.")
        job_id = runner_api.start_run(source, runner_api.Limits(time_s=5.0))
        cache.set(_owner_key(job_id), user_id(request.user), _OWNER_S)
        return Response({"job": job_id}, status=status.HTTP_202_ACCEPTED)


class CodeRunResultPage(APIView):
    schema = None

    def get(self, request: Request, job_id: str) -> Response:
        """{"finished": false} while the job runs; then its output."""
        if cache.get(_owner_key(job_id)) != user_id(request.user):
            raise Http404("No such run.")
        result = runner_api.run_result(job_id)
        if result is None:
            return Response({"finished": False})
        return Response({"finished": True, **asdict(result)})

""" "Try it": a worker runs a snippet in the sandbox without grading, rate limited per user."""

from dataclasses import asdict
from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from grading.errors import AnswerTooLarge
from grading.services.code_runs import code_run_wait
from quizbank.access import user_id


class CodeRunApi(APIView):
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "code_run"

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        code = serializers.CharField(trim_whitespace=False, help_text="Python source to run.")

    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        status = serializers.CharField()
        exit_code = serializers.IntegerField(allow_null=True)
        stdout = serializers.CharField(allow_blank=True)
        stderr = serializers.CharField(allow_blank=True)
        duration_ms = serializers.FloatField()
        truncated = serializers.BooleanField()
        message = serializers.CharField(
            allow_blank=True, help_text="Why the run was stopped or refused; empty otherwise."
        )

    @extend_schema(request=InputSerializer, responses=OutputSerializer, operation_id="code_run")
    def post(self, request: Request) -> Response:
        """Have a worker run the source in the sandbox; its output (no grading, no answers).
        One run per user at a time (429 while one waits); 503 when too many runs wait or no
        worker finished it in CODE_RUN_WAIT_S (both with Retry-After)."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        source: str = data.validated_data["code"]
        limit = int(settings.GRADING_MAX_ANSWER_BYTES)
        if len(source.encode()) > limit:
            raise AnswerTooLarge(f"The source is over the limit of {limit} bytes.")
        result = code_run_wait(user_id=user_id(request.user), source=source)
        return Response(self.OutputSerializer(asdict(result)).data)

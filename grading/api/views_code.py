""" "Try it": a worker runs a snippet in the sandbox without grading, rate limited per user.

`POST /api/code-runs/` waits for the output by default; with `"wait": false` it answers 202
and a job to poll at `GET /api/code-runs/{job}/`, which holds no web process meanwhile (the
quiz page's Run works that way, under /code-runs/). A run names the attempt and the position
of the code question it belongs to; course staff may leave both out.
"""

from dataclasses import asdict
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from config.fields import BooleanOnlyField, IntegerOnlyField, TextOnlyField
from config.signin import client_address
from grading.errors import CodeRunNeedsAttempt
from grading.selectors import access_own_attempt, runs_code_without_attempt
from grading.services.code_runs import (
    HANDLE_MAX,
    code_run_attempt_check,
    code_run_poll,
    code_run_start,
    code_run_wait,
)
from quizbank.access import user_id


class CodeRunOutputSerializer(serializers.Serializer[dict[str, Any]]):
    status = TextOnlyField()
    exit_code = serializers.IntegerField(allow_null=True)
    stdout = TextOnlyField(allow_blank=True)
    stderr = TextOnlyField(allow_blank=True)
    duration_ms = serializers.FloatField()
    truncated = serializers.BooleanField()
    message = TextOnlyField(
        allow_blank=True, help_text="Why the run was stopped or refused; empty otherwise."
    )


class CodeRunQueuedSerializer(serializers.Serializer[dict[str, Any]]):
    job = TextOnlyField(help_text="The run's id: poll `code-runs/{job}/` for its output.")


# `finished` is a one-value choice in each shape so that a reply matches exactly one.
class CodeRunPendingSerializer(serializers.Serializer[dict[str, Any]]):
    finished = serializers.ChoiceField(choices=[False], help_text="The run has not finished.")


class CodeRunFinishedSerializer(CodeRunOutputSerializer):
    finished = serializers.ChoiceField(choices=[True], help_text="The run's output follows.")


NEEDS_ATTEMPT = (
    "Code runs only within an open attempt: name its `attempt` and the `position` of its code "
    "question (only course staff may run code outside an attempt)."
)


class CodeRunRequestSerializer(serializers.Serializer[dict[str, Any]]):
    code = TextOnlyField(kind="verbatim", trim_whitespace=False, help_text="Python source to run.")
    attempt = IntegerOnlyField(
        required=False,
        help_text="The id of the student's own open attempt the run belongs to; course staff "
        "may leave it out, to try code outside any attempt.",
    )
    position = IntegerOnlyField(
        required=False,
        help_text="The attempt's position (as in its autosave URL) of the code question the "
        "run belongs to; given with `attempt`.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        for name, other in (("attempt", "position"), ("position", "attempt")):
            if other in attrs and name not in attrs:
                raise serializers.ValidationError({name: [f"Required with `{other}`."]})
        return attrs


def code_run_allowed(request: Request, data: dict[str, Any]) -> None:
    """Refuse the run unless it is for a code question of the user's own open attempt, or
    it names none and the user is course staff (404 for an attempt not the user's)."""
    if "attempt" not in data:
        if not runs_code_without_attempt(request.user):
            fields = {name: ["Required for a student's run."] for name in ("attempt", "position")}
            raise CodeRunNeedsAttempt(NEEDS_ATTEMPT, fields=fields)
        return
    code_run_attempt_check(
        attempt=access_own_attempt(request.user, data["attempt"]),
        position=data["position"],
        now=timezone.now(),
        address=client_address(request),
    )


class CodeRunStartView(APIView):
    """A view that starts runs: the `code_run` rate counts a run only once its reason stands
    (`run_allowed`), so refused runs (a mistyped position, a closed attempt) leave the
    student's runs for the ones that can happen."""

    answers_404 = True  # an attempt in the body that is not the user's (VivabankAutoSchema)
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "code_run"

    def check_throttles(self, request: Request) -> None:
        """Deferred from `initial` to `run_allowed`, past the reason."""

    def run_allowed(self, request: Request, data: dict[str, Any]) -> None:
        """Refuse the run as `code_run_allowed` does, then count it against the rate (429)."""
        code_run_allowed(request, data)
        super().check_throttles(request)


def code_run_queued(request: Request, source: str) -> Response:
    handle = code_run_start(user_id=user_id(request.user), source=source)
    body = CodeRunQueuedSerializer({"job": handle}).data
    return Response(body, status=status.HTTP_202_ACCEPTED)


JOB_PARAMETER = OpenApiParameter(
    "job_id",
    {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$", "maxLength": HANDLE_MAX},
    OpenApiParameter.PATH,
    description="The job id the run's POST gave.",
)
POLL_RESPONSES = PolymorphicProxySerializer(
    component_name="CodeRunPoll",
    serializers=[CodeRunPendingSerializer, CodeRunFinishedSerializer],
    resource_type_field_name=None,
)


def code_run_polled(request: Request, job_id: str) -> Response:
    result = code_run_poll(user_id=user_id(request.user), handle=job_id)
    if result is None:
        return Response(CodeRunPendingSerializer({"finished": False}).data)
    return Response(CodeRunFinishedSerializer({"finished": True, **asdict(result)}).data)


class CodeRunApi(CodeRunStartView):
    class InputSerializer(CodeRunRequestSerializer):
        wait = BooleanOnlyField(
            default=True,
            help_text="true: answer with the output (holds the request up to CODE_RUN_WAIT_S); "
            "false: answer 202 at once with a job to poll.",
        )

    @extend_schema(
        request=InputSerializer,
        responses={200: CodeRunOutputSerializer, 202: CodeRunQueuedSerializer},
        operation_id="code_run",
    )
    def post(self, request: Request) -> Response:
        """Have a worker run the source in the sandbox (no grading, no answers) for a code
        question of the student's own attempt while it takes answers (course staff may name
        none): 400 `code_run_needs_attempt` without one, 404 for an attempt not the user's or
        a position it lacks, 409 once its answers closed, 400 `not_a_code_question`. One
        unfinished run per user, queued or waited for (429 until its output is there).
        Waiting: its output, and 503 when too many runs wait or no worker finished it in
        CODE_RUN_WAIT_S (both with Retry-After). Not waiting: 202 and the job to poll."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        self.run_allowed(request, data.validated_data)
        source: str = data.validated_data["code"]
        if not data.validated_data["wait"]:
            return code_run_queued(request, source)
        result = code_run_wait(user_id=user_id(request.user), source=source)
        return Response(CodeRunOutputSerializer(asdict(result)).data)


class CodeRunResultApi(APIView):
    @extend_schema(
        parameters=[JOB_PARAMETER], responses=POLL_RESPONSES, operation_id="code_run_poll"
    )
    def get(self, request: Request, job_id: str) -> Response:
        """`{"finished": false}` while the run waits or runs; then its output. Only the user
        who started the run may read it (404 for anyone else)."""
        return code_run_polled(request, job_id)

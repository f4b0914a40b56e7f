"""Authors' check of a code question's solutions: POST queues it (202), GET reads it."""

from dataclasses import asdict
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from config.fields import TextOnlyField
from grading.services.solution_checks import (
    CHECK_ID_PATTERN,
    SolutionVerdict,
    solution_check_finished,
    solution_check_start,
    solution_check_state,
)
from quizbank.access import access_question


class SolutionVerdictSerializer(serializers.Serializer[dict[str, Any]]):
    file = TextOnlyField()
    expected = TextOnlyField(help_text="What the file's name says it must earn.")
    state = serializers.ChoiceField(choices=["waiting", "as_labelled", "problem", "lost"])
    score = serializers.FloatField(allow_null=True)
    problem = TextOnlyField(help_text="Why it did not earn what it should; else empty.")


class SolutionCheckSerializer(serializers.Serializer[dict[str, Any]]):
    check = TextOnlyField()
    finished = serializers.BooleanField()
    passed = serializers.BooleanField(
        allow_null=True, help_text="Every solution as labelled; null while any is waiting."
    )
    solutions = SolutionVerdictSerializer(many=True)


def solution_check_body(check_id: str, verdicts: list[SolutionVerdict]) -> dict[str, Any]:
    finished = solution_check_finished(verdicts)
    passed = all(v.state == "as_labelled" for v in verdicts) if finished else None
    return {
        "check": check_id,
        "finished": finished,
        "passed": passed,
        "solutions": [asdict(verdict) for verdict in verdicts],
    }


class SolutionCheckStartApi(APIView):
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "solution_check"

    @extend_schema(
        request=None,
        responses={202: SolutionCheckSerializer},
        operation_id="question_solution_check_start",
    )
    def post(self, request: Request, question_id: int) -> Response:
        """Have the workers grade the current version's reference.py, correct_*.py and
        wrong_*.py as answers (authors of the course); 202 with the check to poll. 409
        `not_checkable` for a question that is not code or has no reference."""
        question = access_question(request.user, question_id)
        now = timezone.now()
        check_id = solution_check_start(question=question, now=now)
        verdicts = solution_check_state(question=question, check_id=check_id, now=now)
        body = SolutionCheckSerializer(solution_check_body(check_id, verdicts)).data
        return Response(body, status=status.HTTP_202_ACCEPTED)


CHECK_PARAMETER = OpenApiParameter(
    "check_id",
    {"type": "string", "pattern": f"^{CHECK_ID_PATTERN}$", "maxLength": 50},
    OpenApiParameter.PATH,
    description="The check the POST gave.",
)


class SolutionCheckApi(APIView):
    @extend_schema(
        parameters=[CHECK_PARAMETER],
        responses=SolutionCheckSerializer,
        operation_id="question_solution_check",
    )
    def get(self, request: Request, question_id: int, check_id: str) -> Response:
        """Each solution's verdict so far: waiting, as_labelled, problem (with why) or lost."""
        question = access_question(request.user, question_id)
        verdicts = solution_check_state(question=question, check_id=check_id, now=timezone.now())
        return Response(SolutionCheckSerializer(solution_check_body(check_id, verdicts)).data)

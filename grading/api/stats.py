"""Quiz statistics (JSON and CSV) and the gradebook export, for examiners."""

from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from grading.api.stats_serializers import QuizStatisticsSerializer
from grading.services.exports import csv_text, gradebook
from grading.statistics.csv_report import statistics_csv
from grading.statistics.report import quiz_statistics
from grading.statistics.scope import AttemptScope
from quizbank.access import access_quiz
from quizbank.models import Role

CSV = {(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV with a header row")}


def _csv(text: str, name: str) -> HttpResponse:
    reply = HttpResponse(text, content_type="text/csv; charset=utf-8")
    reply["Content-Disposition"] = f'attachment; filename="{name}"'
    return reply


class ScopeParams(serializers.Serializer[dict[str, Any]]):
    attempts = serializers.ChoiceField(
        choices=AttemptScope.choices,
        default=AttemptScope.ALL,
        help_text="Count every attempt (all) or only each student's first attempt in time, "
        "whatever its state (first), so that retakes do not inflate facility.",
    )


def _scope(request: Request) -> str:
    params = ScopeParams(data=request.query_params)
    params.is_valid(raise_exception=True)
    return str(params.validated_data["attempts"])


class QuizStatisticsApi(APIView):
    OutputSerializer = QuizStatisticsSerializer

    @extend_schema(
        parameters=[ScopeParams], responses=OutputSerializer, operation_id="quiz_statistics"
    )
    def get(self, request: Request, quiz_id: int) -> Response:
        """Item analysis of the graded attempts in scope and marker agreement on vivas; every
        figure is defined in its field description and in docs/statistics.md."""
        quiz = access_quiz(request.user, quiz_id, roles=[Role.EXAMINER])
        scope = _scope(request)
        return Response(self.OutputSerializer(quiz_statistics(quiz, scope=scope)).data)


class QuizStatisticsCsvApi(APIView):
    @extend_schema(parameters=[ScopeParams], responses=CSV, operation_id="quiz_statistics_csv")
    def get(self, request: Request, quiz_id: int) -> HttpResponse:
        """The per-question statistics as CSV."""
        quiz = access_quiz(request.user, quiz_id, roles=[Role.EXAMINER])
        scope = _scope(request)
        report = quiz_statistics(quiz, scope=scope)
        return _csv(statistics_csv(report), f"{quiz.slug}-statistics.csv")


class QuizGradesCsvApi(APIView):
    @extend_schema(responses=CSV, operation_id="quiz_grades_csv")
    def get(self, request: Request, quiz_id: int) -> HttpResponse:
        """Gradebook: one row per student (user id, username) with points per quiz slot,
        total and percentage."""
        quiz = access_quiz(request.user, quiz_id, roles=[Role.EXAMINER])
        header, rows = gradebook(quiz)
        return _csv(csv_text(header, rows), f"{quiz.slug}-grades.csv")

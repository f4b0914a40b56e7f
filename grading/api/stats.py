"""Quiz statistics (JSON and CSV) and the gradebook export, for examiners."""

from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from grading.services.export_csv import csv_text
from grading.services.export_grades import gradebook
from grading.statistics.csv_report import statistics_csv
from grading.statistics.report import quiz_statistics
from grading.statistics.scope import AttemptScope
from quizbank.models import Role
from quizbank.selectors_quizzes import access_quiz

CSV = {(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV with a header row")}


def _csv(text: str, name: str) -> HttpResponse:
    reply = HttpResponse(text, content_type="text/csv; charset=utf-8")
    reply["Content-Disposition"] = f'attachment; filename="{name}"'
    return reply


class ScopeParams(serializers.Serializer[dict[str, Any]]):
    attempts = serializers.ChoiceField(
        choices=AttemptScope.choices, default=AttemptScope.ALL,
        help_text="Count every graded attempt (all) or only each student's first (first), "
        "so that retakes do not inflate facility.",
    )  # fmt: skip


def _scope(request: Request) -> str:
    params = ScopeParams(data=request.query_params)
    params.is_valid(raise_exception=True)
    return str(params.validated_data["attempts"])


class QuestionStatsSerializer(serializers.Serializer[dict[str, Any]]):
    question = serializers.IntegerField()
    title = serializers.CharField()
    type = serializers.CharField()
    responses = serializers.IntegerField()
    mean_time_s = serializers.FloatField(allow_null=True)
    facility = serializers.FloatField(allow_null=True)
    discrimination_index = serializers.FloatField(allow_null=True)
    item_total_correlation = serializers.FloatField(allow_null=True)
    choices = serializers.ListField(child=serializers.DictField())
    agreement = serializers.DictField(allow_null=True)


class QuizStatisticsApi(APIView):
    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        quiz = serializers.IntegerField()
        scope = serializers.ChoiceField(choices=AttemptScope.choices)
        attempts = serializers.IntegerField()
        mean_percentage = serializers.FloatField(allow_null=True)
        median_percentage = serializers.FloatField(allow_null=True)
        mean_time_s = serializers.FloatField(allow_null=True)
        distribution = serializers.ListField(child=serializers.DictField())
        questions = QuestionStatsSerializer(many=True)

    @extend_schema(parameters=[ScopeParams], responses=OutputSerializer,
                   operation_id="quiz_statistics")  # fmt: skip
    def get(self, request: Request, quiz_id: int) -> Response:
        """Item analysis of the quiz's graded attempts, with marker agreement on vivas."""
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
        """Gradebook: one row per student with per-question points, total and percentage."""
        quiz = access_quiz(request.user, quiz_id, roles=[Role.EXAMINER])
        header, rows = gradebook(quiz)
        return _csv(csv_text(header, rows), f"{quiz.slug}-grades.csv")

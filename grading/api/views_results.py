"""Read-only attempt endpoints: the list, a result summary and a quiz grade."""

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import TextOnlyField
from grading.api.presenters import attempt_result
from grading.api.serializers import (
    PENDING_ANSWER,
    PENDING_ATTEMPT,
    PREVIOUS_SCORE,
    TOTAL,
    UPDATED_AT,
    AttemptSummarySerializer,
)
from grading.api.views import attempt_read
from grading.models import Attempt
from grading.selectors import (
    attempts_for_user,
    attempts_pending,
    quiz_grade,
    results_released,
)
from quizbank.access import access_quiz, user_id
from quizbank.models import Role


class AttemptListApi(generics.ListAPIView[Attempt]):
    """The user's attempts (and, for examiners, those of their courses)."""

    serializer_class = AttemptSummarySerializer
    filterset_fields = ["quiz", "user", "status"]
    ordering_fields = ["started_at", "number", "submitted_at"]
    ordering = ["-started_at"]

    def get_queryset(self) -> QuerySet[Attempt]:
        return attempts_for_user(self.request.user).order_by("-started_at")


class ResultQuestionSerializer(serializers.Serializer[dict[str, Any]]):
    position = serializers.IntegerField()
    title = TextOnlyField()
    type = TextOnlyField()
    status = TextOnlyField()
    pending = serializers.BooleanField(help_text=PENDING_ANSWER)
    points = serializers.DecimalField(max_digits=6, decimal_places=2)
    score = serializers.FloatField(allow_null=True)
    points_awarded = serializers.DecimalField(max_digits=9, decimal_places=3, allow_null=True)
    feedback = serializers.JSONField(allow_null=True)
    updated_at = serializers.DateTimeField(allow_null=True, help_text=UPDATED_AT)
    previous_score = serializers.FloatField(allow_null=True, help_text=PREVIOUS_SCORE)
    previous_points_awarded = serializers.DecimalField(
        max_digits=9, decimal_places=3, allow_null=True, help_text=PREVIOUS_SCORE
    )


class AttemptResultApi(APIView):
    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        attempt = serializers.IntegerField()
        status = TextOnlyField()
        results_visible = serializers.BooleanField()
        pending = serializers.BooleanField(help_text=PENDING_ATTEMPT)
        score = serializers.DecimalField(
            max_digits=9, decimal_places=3, allow_null=True, help_text=TOTAL
        )
        final_score = serializers.DecimalField(
            max_digits=9, decimal_places=3, allow_null=True, help_text=TOTAL
        )
        max_score = serializers.DecimalField(max_digits=9, decimal_places=3)
        updated_at = serializers.DateTimeField(allow_null=True, help_text=UPDATED_AT)
        questions = ResultQuestionSerializer(many=True)

    @extend_schema(responses=OutputSerializer, operation_id="attempt_result")
    def get(self, request: Request, attempt_id: int) -> Response:
        """Per-question status, score and feedback; scores stay null until released."""
        now = timezone.now()
        attempt, answers = attempt_read(request, attempt_id, now)
        data = attempt_result(request.user, attempt, now, answers)
        return Response(self.OutputSerializer(data).data)


class QuizGradeApi(APIView):
    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        quiz = serializers.IntegerField()
        grading_method = TextOnlyField()
        released = serializers.BooleanField()
        grade = serializers.DecimalField(
            max_digits=9,
            decimal_places=3,
            allow_null=True,
            help_text="Over the attempts whose results you may see (graded, released).",
        )
        pending = serializers.BooleanField(
            help_text="An attempt of yours is still waiting for the runner or an examiner."
        )

    @extend_schema(responses=OutputSerializer, operation_id="quiz_my_grade")
    def get(self, request: Request, quiz_id: int) -> Response:
        """The student's own grade across attempts (highest, last or average), once released."""
        quiz = access_quiz(request.user, quiz_id, roles=[Role.STUDENT])
        now, student = timezone.now(), user_id(request.user)
        released = results_released(quiz, now)
        grade = quiz_grade(quiz, student, seen_at=now) if released else None
        pending = attempts_pending(quiz, student)
        data = {
            "quiz": quiz.pk,
            "grading_method": quiz.grading_method,
            "released": released,
            "grade": grade,
            "pending": pending,
        }
        return Response(self.OutputSerializer(data).data)

"""Bulk regrade endpoints: start a run for a corrected question, follow its progress."""

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import IntegerOnlyField, TextOnlyField
from grading.api.auth import signed_in_user
from grading.models.regrade import RegradeMode, RegradeRun
from grading.selectors.regrade import (
    access_regrade_run,
    regrade_run_failures,
    regrade_runs_for,
)
from grading.services.regrade.runs import regrade_run_start
from quizbank.access import access_quiz
from quizbank.models import Question, Role


class FailureSerializer(serializers.Serializer[dict[str, Any]]):
    response = serializers.IntegerField(help_text="The answer's id (as in the marking queue).")
    message = TextOnlyField(help_text="Why it was not regraded.")


class RunSerializer(serializers.ModelSerializer[RegradeRun]):
    created_by = TextOnlyField(source="created_by.username")
    failures = serializers.SerializerMethodField(
        help_text="The answers counted in `failed`, each with the reason."
    )

    class Meta:
        model = RegradeRun
        fields = [
            "id",
            "quiz",
            "question",
            "mode",
            "target_version",
            "reason",
            "created_by",
            "status",
            "total",
            "done",
            "changed",
            "failed",
            "created_at",
            "finished_at",
            "failures",
        ]

    @extend_schema_field(FailureSerializer(many=True))
    def get_failures(self, run: RegradeRun) -> list[dict[str, int | str]]:
        return regrade_run_failures(run)


class RegradeRunStartApi(APIView):
    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        question = IntegerOnlyField()
        mode = serializers.ChoiceField(choices=RegradeMode.choices)
        reason = TextOnlyField(kind="multi_line", max_length=2000)

    @extend_schema(
        request=InputSerializer, responses={201: RunSerializer}, operation_id="regrade_run_start"
    )
    def post(self, request: Request, quiz_id: int) -> Response:
        """Regrade every graded answer to a question in this quiz, keeping or applying
        the question's current version; the run's counts show progress."""
        quiz = access_quiz(request.user, quiz_id, roles=[Role.EXAMINER])
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        question = Question.objects.filter(pk=data.validated_data["question"], course=quiz.course)
        if not question.exists():
            raise Http404("No such question in this course.")
        run = regrade_run_start(
            quiz=quiz,
            question=question.get(),
            mode=data.validated_data["mode"],
            reason=data.validated_data["reason"],
            actor=signed_in_user(request),
            now=timezone.now(),
        )
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)


class RegradeRunListApi(generics.ListAPIView[RegradeRun]):
    """Regrade runs of the examiner's courses, newest first."""

    serializer_class = RunSerializer
    filterset_fields = ["quiz", "status", "question"]
    ordering_fields = ["created_at"]
    ordering = ["-created_at"]

    def get_queryset(self) -> QuerySet[RegradeRun]:
        return regrade_runs_for(self.request.user).order_by("-created_at")


class RegradeRunDetailApi(APIView):
    @extend_schema(responses=RunSerializer, operation_id="regrade_run_detail")
    def get(self, request: Request, run_id: int) -> Response:
        """A run's progress: total, done, changed and failed answers."""
        return Response(RunSerializer(access_regrade_run(request.user, run_id)).data)

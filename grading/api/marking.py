"""Marking endpoints: the queue, one answer, marks, moderation, second marks, history."""

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView

from config.fields import TextOnlyField
from grading.api.auth import signed_in_user
from grading.api.marking_filters import MarkingQueueFilter
from grading.api.marking_presenters import marking_view, student_labels
from grading.api.marking_serializers import (
    MarkChangeSerializer,
    MarkingStateSerializer,
    MarkInputSerializer,
    MarkOutputSerializer,
    RubricCriterionSerializer,
    ScoreChangeSerializer,
)
from grading.models import Response as AnswerRow
from grading.selectors.marking import (
    access_mark,
    access_marking_response,
    marking_history,
    marking_queue,
)
from grading.services.marking.marks import (
    mark_create,
    mark_moderate,
    mark_update,
    second_mark_request,
)

_TRUE = ("true", "1", "yes")
ANONYMOUS = OpenApiParameter(
    "anonymous",
    bool,
    description="Show pseudonyms instead of students' names (a quiz with anonymous marking "
    "always does, whatever this says) until the mark is final and released.",
)

ATTEMPT_HELP = "The attempt's id; null under anonymous marking, as the attempt names the student."


def anonymity_requested(request: Request) -> bool:
    return str(request.query_params.get("anonymous", "")).lower() in _TRUE


class QueueItemSerializer(serializers.Serializer[AnswerRow]):
    id = serializers.IntegerField()
    attempt = serializers.SerializerMethodField(help_text=ATTEMPT_HELP)
    quiz = serializers.IntegerField(source="attempt.quiz_id")
    student = serializers.SerializerMethodField(
        help_text="Username, or a pseudonym under anonymous marking."
    )
    anonymous = serializers.SerializerMethodField(help_text="Whether `student` is a pseudonym.")
    question = TextOnlyField(source="question_version.question.title")
    position = serializers.IntegerField()
    marking_status = TextOnlyField()
    score = serializers.FloatField(allow_null=True)

    def get_attempt(self, row: AnswerRow) -> int | None:
        return None if self.get_anonymous(row) else row.attempt_id

    def get_student(self, row: AnswerRow) -> str:
        return str(self.context["students"][row.pk][0])

    def get_anonymous(self, row: AnswerRow) -> bool:
        return bool(self.context["students"][row.pk][1])


class MarkingQueueApi(generics.ListAPIView[AnswerRow]):
    """Viva answers to mark in the examiner's courses (filter by quiz, status, second, flagged)."""

    serializer_class = QueueItemSerializer
    filterset_class = MarkingQueueFilter
    ordering_fields = ["id", "attempt__submitted_at"]
    ordering = ["id"]

    def get_queryset(self) -> QuerySet[AnswerRow]:
        return marking_queue(self.request.user).order_by("id")

    def get_serializer(self, *args: Any, **kwargs: Any) -> BaseSerializer[AnswerRow]:
        # Names or pseudonyms of the rows being shown, read by the serializer.
        rows = list(args[0]) if args else []
        students = student_labels(rows, requested=anonymity_requested(self.request))
        context = {**self.get_serializer_context(), "students": students}
        return super().get_serializer(*args, **{**kwargs, "context": context})

    @extend_schema(parameters=[ANONYMOUS], operation_id="marking_queue")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class MarkingResponseApi(APIView):
    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        id = serializers.IntegerField()
        attempt = serializers.IntegerField(allow_null=True, help_text=ATTEMPT_HELP)
        quiz = serializers.IntegerField()
        student = TextOnlyField(help_text="Username, or a pseudonym under anonymous marking.")
        anonymous = serializers.BooleanField(help_text="Whether `student` is a pseudonym.")
        position = serializers.IntegerField()
        question = serializers.JSONField()
        answer = serializers.JSONField(allow_null=True)
        model_answer = TextOnlyField(allow_blank=True)
        guidance = TextOnlyField(allow_blank=True)
        rubric = RubricCriterionSerializer(many=True)
        marking = MarkingStateSerializer()
        score = serializers.FloatField(allow_null=True)
        marks_hidden = serializers.BooleanField()
        marks = MarkOutputSerializer(many=True)

    @extend_schema(
        parameters=[ANONYMOUS], responses=OutputSerializer, operation_id="marking_response"
    )
    def get(self, request: Request, response_id: int) -> Response:
        """The answer, model answer, guidance, rubric and (unless blind) the marks so far."""
        answer = access_marking_response(request.user, response_id)
        view = marking_view(request.user, answer, anonymous=anonymity_requested(request))
        return Response(self.OutputSerializer(view).data)


class MarkCreateApi(APIView):
    @extend_schema(
        request=MarkInputSerializer,
        responses={201: MarkOutputSerializer},
        operation_id="mark_create",
    )
    def post(self, request: Request, response_id: int) -> Response:
        """Mark a viva answer: first mark, or a blind second mark if one already exists."""
        answer = access_marking_response(request.user, response_id)
        data = MarkInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        mark = mark_create(
            response_id=answer.pk,
            marker=signed_in_user(request),
            data=data.to_input(),
            now=timezone.now(),
        )
        return Response(MarkOutputSerializer(mark).data, status=status.HTTP_201_CREATED)


class MarkUpdateApi(APIView):
    @extend_schema(
        request=MarkInputSerializer, responses=MarkOutputSerializer, operation_id="mark_update"
    )
    def put(self, request: Request, mark_id: int) -> Response:
        """Change one's own mark; the before and after are logged."""
        mark = access_mark(request.user, mark_id)
        data = MarkInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        updated = mark_update(
            mark_id=mark.pk,
            marker=signed_in_user(request),
            data=data.to_input(),
            now=timezone.now(),
        )
        return Response(MarkOutputSerializer(updated).data)


class ModerationApi(APIView):
    @extend_schema(
        request=MarkInputSerializer,
        responses={201: MarkOutputSerializer},
        operation_id="mark_moderate",
    )
    def post(self, request: Request, response_id: int) -> Response:
        """The moderator's mark on a flagged answer; it becomes the final mark."""
        answer = access_marking_response(request.user, response_id)
        data = MarkInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        mark = mark_moderate(
            response_id=answer.pk,
            moderator=signed_in_user(request),
            data=data.to_input(),
            now=timezone.now(),
        )
        return Response(MarkOutputSerializer(mark).data, status=status.HTTP_201_CREATED)


class SecondMarkRequestApi(APIView):
    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        status = TextOnlyField()

    @extend_schema(request=None, responses=OutputSerializer, operation_id="mark_request_second")
    def post(self, request: Request, response_id: int) -> Response:
        """Require a blind second mark of this answer."""
        answer = access_marking_response(request.user, response_id)
        state = second_mark_request(
            response_id=answer.pk, examiner=signed_in_user(request), now=timezone.now()
        )
        return Response(self.OutputSerializer({"status": state}).data)


class MarkingHistoryApi(APIView):
    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        mark_changes = MarkChangeSerializer(many=True)
        score_changes = ScoreChangeSerializer(many=True)

    @extend_schema(responses=OutputSerializer, operation_id="marking_history")
    def get(self, request: Request, response_id: int) -> Response:
        """Every change of a mark (who, when, before, after) and of the answer's score."""
        answer = access_marking_response(request.user, response_id)
        return Response(self.OutputSerializer(marking_history(request.user, answer)).data)

"""Regrade requests: a student asks about a released answer; an examiner answers."""

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import TextOnlyField
from grading.api.auth import signed_in_user
from grading.models.regrade import RegradeRequest
from grading.selectors import access_own_attempt
from grading.selectors.marking import marks_hidden
from grading.selectors.regrade import access_request_to_answer, regrade_requests_for
from grading.services.regrade.requests import regrade_request_answer, regrade_request_create
from quizbank.access import user_id


class RequestSerializer(serializers.ModelSerializer[RegradeRequest]):
    attempt = serializers.IntegerField(source="response.attempt_id")
    position = serializers.IntegerField(source="response.position")
    question = TextOnlyField(source="response.question_version.content.title")
    score_before = serializers.SerializerMethodField()
    score_after = serializers.SerializerMethodField()

    class Meta:
        model = RegradeRequest
        fields = [
            "id",
            "response",
            "attempt",
            "position",
            "question",
            "reason",
            "status",
            "reply",
            "score_before",
            "score_after",
            "created_at",
            "answered_at",
        ]

    def get_score_before(self, row: RegradeRequest) -> float | None:
        return None if self._blind(row) else row.score_before

    def get_score_after(self, row: RegradeRequest) -> float | None:
        return None if self._blind(row) else row.score_after

    def _blind(self, row: RegradeRequest) -> bool:
        # A blind second marker must not read the first mark off the score it was asked about.
        request = self.context.get("request")
        if request is None or row.student_id == user_id(request.user):
            return False
        return marks_hidden(request.user, row.response)


class RegradeRequestCreateApi(APIView):
    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        reason = TextOnlyField(kind="multi_line", max_length=4000)

    @extend_schema(
        request=InputSerializer,
        responses={201: RequestSerializer},
        operation_id="regrade_request_create",
    )
    def post(self, request: Request, attempt_id: int, position: int) -> Response:
        """Ask for one of your released answers to be regraded, saying why."""
        attempt = access_own_attempt(request.user, attempt_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        answer = attempt.responses.filter(position=position).first()
        if answer is None:
            raise Http404("No such question in this attempt.")
        reason = data.validated_data["reason"]
        student = signed_in_user(request)
        made = regrade_request_create(
            response=answer, student=student, reason=reason, now=timezone.now()
        )
        return Response(RequestSerializer(made).data, status=status.HTTP_201_CREATED)


class RegradeRequestListApi(generics.ListAPIView[RegradeRequest]):
    """Your own requests, and (examiners) the requests in your courses."""

    serializer_class = RequestSerializer
    filterset_fields = {"status": ["exact"], "response__attempt__quiz": ["exact"]}
    ordering_fields = ["created_at"]
    ordering = ["-created_at"]

    def get_queryset(self) -> QuerySet[RegradeRequest]:
        return regrade_requests_for(self.request.user).order_by("-created_at")


class RegradeRequestAnswerApi(APIView):
    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        decision = serializers.ChoiceField(choices=["accept", "reject"])
        reply = TextOnlyField(kind="multi_line", max_length=4000)
        points = serializers.DecimalField(
            max_digits=6, decimal_places=2, required=False, allow_null=True, default=None
        )

    @extend_schema(
        request=InputSerializer, responses=RequestSerializer, operation_id="regrade_request_answer"
    )
    def post(self, request: Request, request_id: int) -> Response:
        """Accept with the new points (logged) or reject, with a reply to the student."""
        access_request_to_answer(request.user, request_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        answered = regrade_request_answer(
            request_id=request_id,
            examiner=signed_in_user(request),
            accept=v["decision"] == "accept",
            reply=v["reply"],
            points=v["points"],
            now=timezone.now(),
        )
        return Response(RequestSerializer(answered).data)

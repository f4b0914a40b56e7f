"""Attempt endpoints: parse input, access_*, one service, serialize."""

from datetime import datetime
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import IntegerOnlyField, TextOnlyField
from config.signin import client_address
from grading.api.auth import signed_in_user
from grading.api.presenters import attempt_view
from grading.api.serializers import AttemptOutputSerializer
from grading.models import Attempt
from grading.models import Response as ResponseRow
from grading.selectors import access_attempt_answers, access_own_attempt
from grading.services.attempts import attempt_start
from grading.services.responses import (
    attempt_close_if_overdue,
    attempt_submit_own,
    response_autosave,
)
from quizbank.access import access_quiz, user_id
from quizbank.models import Role


def _attempt_response(
    request: Request, attempt: Any, code: int = 200, answers: list[ResponseRow] | None = None
) -> Response:
    data = attempt_view(request.user, attempt, timezone.now(), answers)
    return Response(AttemptOutputSerializer(data).data, status=code)


def attempt_read(
    request: Request, attempt_id: int, now: datetime
) -> tuple[Attempt, list[ResponseRow] | None]:
    """The attempt the user may read, submitted first if overdue, and its answers as read with
    it (None when the close changed them, for the presenter to read again)."""
    attempt, answers = access_attempt_answers(request.user, attempt_id)
    current = attempt_close_if_overdue(attempt=attempt, now=now)
    return current, (answers if current is attempt else None)


class AttemptStartApi(APIView):
    answers_429 = True  # too many wrong access codes (schema: VivabankAutoSchema)

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        access_code = TextOnlyField(
            required=False,
            allow_blank=True,
            max_length=64,
            help_text="Asked for when the quiz has one (403 `access_code_wrong` otherwise).",
        )

    @extend_schema(
        request=InputSerializer,
        responses={201: AttemptOutputSerializer, 200: AttemptOutputSerializer},
        operation_id="attempt_start",
    )
    def post(self, request: Request, quiz_id: int) -> Response:
        """Start an attempt (201), or resume the open one (200), on the student's own terms
        (extra time, attempts, window); the deadline comes from the server. 403 for a wrong
        access code or an address outside the quiz's allowed networks; 429
        `access_code_tries_used_up` (with Retry-After) after too many wrong codes."""
        quiz = access_quiz(request.user, quiz_id, roles=[Role.STUDENT])
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        now = timezone.now()
        attempt = attempt_start(
            quiz=quiz,
            user=signed_in_user(request),
            now=now,
            access_code=data.validated_data.get("access_code", ""),
            address=client_address(request),
        )
        created = attempt.started_at == now  # a new attempt starts now; a resumed one earlier
        attempt = attempt_close_if_overdue(attempt=attempt, now=timezone.now())
        return _attempt_response(
            request, attempt, status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )


class AttemptDetailApi(APIView):
    @extend_schema(responses=AttemptOutputSerializer, operation_id="attempt_detail")
    def get(self, request: Request, attempt_id: int) -> Response:
        """The attempt with its questions; scores only once released. Submits it if overdue."""
        attempt, answers = attempt_read(request, attempt_id, timezone.now())
        return _attempt_response(request, attempt, answers=answers)


class ResponseAutosaveApi(APIView):
    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        answer = serializers.JSONField(allow_null=True, help_text="Shape depends on the type.")
        version = IntegerOnlyField(help_text="The version last read.")

    class OutputSerializer(serializers.Serializer[ResponseRow]):
        position = serializers.IntegerField()
        version = serializers.IntegerField()
        saved_at = serializers.DateTimeField()
        status = TextOnlyField()

    @extend_schema(
        request=InputSerializer, responses=OutputSerializer, operation_id="response_autosave"
    )
    def put(self, request: Request, attempt_id: int, position: int) -> Response:
        """Save one answer; 409 `stale_version` (with the current version) from an old copy."""
        attempt = access_own_attempt(request.user, attempt_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        saved = response_autosave(
            attempt=attempt,
            position=position,
            answer=data.validated_data["answer"],
            version=data.validated_data["version"],
            now=timezone.now(),
            address=client_address(request),
        )
        return Response(self.OutputSerializer(saved).data)


KEY_HEADER = "Idempotency-Key"
KEY_LENGTH = 100  # Attempt.idempotency_key


def _idempotency_key(request: Request) -> str:
    key = str(request.headers.get(KEY_HEADER, ""))
    if len(key) > KEY_LENGTH or not key.isprintable():
        raise ValidationError({KEY_HEADER: [f"At most {KEY_LENGTH} printable characters."]})
    return key


class AttemptSubmitApi(APIView):
    @extend_schema(
        request=None,
        responses=AttemptOutputSerializer,
        operation_id="attempt_submit",
        parameters=[
            OpenApiParameter(
                KEY_HEADER, {"type": "string", "maxLength": KEY_LENGTH}, OpenApiParameter.HEADER
            )
        ],
    )
    def post(self, request: Request, attempt_id: int) -> Response:
        """Submit once; repeating it returns the same attempt and never grades twice."""
        key = _idempotency_key(request)
        attempt = attempt_submit_own(
            user_id=user_id(request.user),
            attempt_id=attempt_id,
            now=timezone.now(),
            idempotency_key=key,
        )
        return _attempt_response(request, attempt)

"""A quiz's access rules: the author's view and writes, and each student's own terms."""

from typing import Any

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import IntegerOnlyField, RegexOnlyField, TextOnlyField
from quizbank.access import AUTHORS, access_quiz, user_id
from quizbank.models import Quiz, QuizAccessOverride
from quizbank.selectors import course_student
from quizbank.services.quiz_access import quiz_terms
from quizbank.services.quiz_overrides import (
    ACCESS_CODE_PATTERN,
    ACCESS_CODE_RULE,
    MAX_ACCESS_CODE,
    MAX_EXTRA_ATTEMPTS,
    MAX_EXTRA_TIME_PERCENT,
    MAX_NETWORKS,
    MAX_OVERRIDE_REASON,
    NETWORK_EXAMPLES,
    NETWORK_PATTERN,
    OverrideInput,
    quiz_access_rules_set,
    quiz_override_delete,
    quiz_override_set,
)


class AccessOverrideSerializer(serializers.ModelSerializer[QuizAccessOverride]):
    username = TextOnlyField(source="user.username", read_only=True)

    class Meta:
        model = QuizAccessOverride
        fields = [
            "id",
            "user",
            "username",
            "extra_time_percent",
            "extra_attempts",
            "opens_at",
            "closes_at",
            "reason",
        ]


class AccessRulesSerializer(serializers.Serializer[Quiz]):
    access_code = RegexOnlyField(
        ACCESS_CODE_PATTERN,
        allow_blank=True,
        max_length=MAX_ACCESS_CODE,
        error_messages={"invalid": f"Not an access code: one is {ACCESS_CODE_RULE}."},
        help_text=f"Empty: none. Otherwise {ACCESS_CODE_RULE}; trimmed.",
    )
    allowed_networks = serializers.ListField(
        child=RegexOnlyField(
            NETWORK_PATTERN,
            max_length=64,
            error_messages={"invalid": f"Not a network such as {NETWORK_EXAMPLES}."},
        ),
        max_length=MAX_NETWORKS,
        help_text=f"Empty: anywhere. Each an IPv4 or IPv6 address with a prefix length or "
        f"without (one address): {NETWORK_EXAMPLES}.",
    )


class TermsSerializer(serializers.Serializer[Any]):
    """The quiz as it applies to the signed-in user."""

    opens_at = serializers.DateTimeField(allow_null=True)
    closes_at = serializers.DateTimeField(allow_null=True)
    time_limit = serializers.DurationField(allow_null=True)
    attempts_allowed = serializers.IntegerField(help_text="0 means unlimited.")
    extra_time_percent = serializers.IntegerField()
    extra_attempts = serializers.IntegerField()
    needs_access_code = serializers.BooleanField()
    network_restricted = serializers.SerializerMethodField()
    has_override = serializers.BooleanField()

    def get_network_restricted(self, terms: Any) -> bool:
        return bool(terms.networks)


def _rules(quiz: Quiz) -> dict[str, Any]:
    overrides = quiz.access_overrides.select_related("user").order_by("user__username")
    return {
        "access_code": quiz.access_code,
        "allowed_networks": list(quiz.allowed_networks or []),
        "overrides": AccessOverrideSerializer(overrides, many=True).data,
    }


class AccessRulesOutput(serializers.Serializer[Quiz]):
    access_code = serializers.CharField()
    allowed_networks = serializers.ListField(child=serializers.CharField())
    overrides = AccessOverrideSerializer(many=True)


class QuizAccessRulesApi(APIView):
    @extend_schema(responses=AccessRulesOutput, operation_id="quiz_access_rules")
    def get(self, request: Request, quiz_id: int) -> Response:
        """The access code, allowed networks and every student's override (authors)."""
        return Response(_rules(access_quiz(request.user, quiz_id, roles=AUTHORS)))

    @extend_schema(
        request=AccessRulesSerializer,
        responses=AccessRulesOutput,
        operation_id="quiz_access_rules_set",
    )
    def put(self, request: Request, quiz_id: int) -> Response:
        """Set the access code (empty: none) and allowed networks (empty: anywhere)."""
        quiz = access_quiz(request.user, quiz_id, roles=AUTHORS)
        data = AccessRulesSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        quiz_access_rules_set(
            quiz=quiz,
            access_code=data.validated_data["access_code"],
            networks=data.validated_data["allowed_networks"],
        )
        return Response(_rules(quiz))


class QuizOverrideApi(APIView):
    class InputSerializer(serializers.Serializer[Any]):
        extra_time_percent = IntegerOnlyField(
            min_value=0, max_value=MAX_EXTRA_TIME_PERCENT, default=0
        )
        extra_attempts = IntegerOnlyField(min_value=0, max_value=MAX_EXTRA_ATTEMPTS, default=0)
        opens_at = serializers.DateTimeField(allow_null=True, default=None)
        closes_at = serializers.DateTimeField(allow_null=True, default=None)
        reason = TextOnlyField(
            kind="multi_line", allow_blank=True, max_length=MAX_OVERRIDE_REASON, default=""
        )

    @extend_schema(
        request=InputSerializer,
        responses=AccessOverrideSerializer,
        operation_id="quiz_override_set",
    )
    def put(self, request: Request, quiz_id: int, student_id: int) -> Response:
        """Give one student of the course extra time, attempts or a later window."""
        quiz = access_quiz(request.user, quiz_id, roles=AUTHORS)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        student = course_student(quiz.course_id, pk=student_id)
        if student is None:
            raise Http404(f"No student {student_id} in this course.")
        override = quiz_override_set(
            quiz=quiz, student=student, data=OverrideInput(**data.validated_data)
        )
        return Response(AccessOverrideSerializer(override).data)

    @extend_schema(request=None, responses={204: None}, operation_id="quiz_override_delete")
    def delete(self, request: Request, quiz_id: int, student_id: int) -> Response:
        """Remove the student's override; the quiz's own terms apply again."""
        quiz = access_quiz(request.user, quiz_id, roles=AUTHORS)
        override = quiz.access_overrides.filter(user_id=student_id).first()
        if override is not None:
            quiz_override_delete(quiz=quiz, override_id=override.pk)
        return Response(status=status.HTTP_204_NO_CONTENT)


class QuizTermsApi(APIView):
    @extend_schema(responses=TermsSerializer, operation_id="quiz_my_terms")
    def get(self, request: Request, quiz_id: int) -> Response:
        """The quiz's window, time limit and attempts as they apply to you (any member)."""
        quiz = access_quiz(request.user, quiz_id)
        return Response(TermsSerializer(quiz_terms(quiz=quiz, user_id=user_id(request.user))).data)

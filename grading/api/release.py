"""Release of a quiz's results (examiners): what would be shown before it is final, the
release itself (refused unless final or overridden), withdrawal, and the audit log."""

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import IntegerOnlyField, TextOnlyField
from grading.api.auth import signed_in_user
from grading.models.release import QuizRelease
from grading.services.release import (
    BLOCKING_STATES,
    ReleaseOverride,
    quiz_release_history,
    quiz_results_release,
    quiz_results_withdraw,
    release_blockers,
)
from quizbank.access import access_quiz
from quizbank.models import Role


class BlockerSerializer(serializers.Serializer[Any]):
    response = serializers.IntegerField(help_text="Answer id (name it in an override).")
    attempt = serializers.IntegerField()
    position = serializers.IntegerField(help_text="The question's position in the attempt.")
    attempt_number = serializers.IntegerField(
        help_text="The student's own count of the attempt (1 for their first), as their pages say."
    )
    student = TextOnlyField()
    state = serializers.ChoiceField(choices=BLOCKING_STATES, help_text="Why it is not final.")


class ReleaseLogSerializer(serializers.ModelSerializer[QuizRelease]):
    actor = TextOnlyField(source="actor.username")

    class Meta:
        model = QuizRelease
        fields = ["id", "action", "actor", "created_at", "attempts", "overridden", "reason"]


class OverrideSerializer(serializers.Serializer[dict[str, Any]]):
    responses = serializers.ListField(
        child=IntegerOnlyField(min_value=1),
        max_length=10000,
        help_text="Every answer that is not final yet (the `responses` of the 409), "
        "released anyway and shown to its student as pending.",
    )
    reason = TextOnlyField(
        kind="multi_line", max_length=4000, help_text="Why; kept in the release log."
    )


class QuizReleaseApi(APIView):
    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        override = OverrideSerializer(required=False)

    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        quiz = serializers.IntegerField()
        released_at = serializers.DateTimeField(allow_null=True)
        release = ReleaseLogSerializer(help_text="The log row of this release or withdrawal.")

    class StateSerializer(serializers.Serializer[dict[str, Any]]):
        quiz = serializers.IntegerField()
        released_at = serializers.DateTimeField(allow_null=True)
        not_final = BlockerSerializer(
            many=True, help_text="Answers of not yet released attempts that are not final."
        )
        history = ReleaseLogSerializer(many=True)

    @extend_schema(responses=StateSerializer, operation_id="quiz_release_state")
    def get(self, request: Request, quiz_id: int) -> Response:
        """What a release would cover that is not final yet, and every past release."""
        quiz = access_quiz(request.user, quiz_id, roles=[Role.EXAMINER])
        history = quiz_release_history(quiz)
        data = {
            "quiz": quiz.pk,
            "released_at": quiz.released_at,
            "not_final": release_blockers(quiz),
            "history": history,
        }
        return Response(self.StateSerializer(data).data)

    @extend_schema(request=InputSerializer, responses=OutputSerializer, operation_id="quiz_release")
    def post(self, request: Request, quiz_id: int) -> Response:
        """Release scores and feedback to students (examiners); 409 `release_blocked` while
        answers are not final, unless `override` names every one of them with a reason."""
        quiz = access_quiz(request.user, quiz_id, roles=[Role.EXAMINER])
        data = self.InputSerializer(data=request.data or {})
        data.is_valid(raise_exception=True)
        given = data.validated_data.get("override")
        override = (
            None
            if given is None
            else ReleaseOverride(responses=frozenset(given["responses"]), reason=given["reason"])
        )
        log = quiz_results_release(
            quiz=quiz, actor=signed_in_user(request), now=timezone.now(), override=override
        )
        reply = {"quiz": quiz.pk, "released_at": log.quiz.released_at, "release": log}
        return Response(self.OutputSerializer(reply).data)

    @extend_schema(
        request=None, responses={200: OutputSerializer}, operation_id="quiz_release_withdraw"
    )
    def delete(self, request: Request, quiz_id: int) -> Response:
        """Withdraw a release made by mistake (examiners); logged."""
        quiz = access_quiz(request.user, quiz_id, roles=[Role.EXAMINER])
        log = quiz_results_withdraw(quiz=quiz, actor=signed_in_user(request), now=timezone.now())
        return Response(
            self.OutputSerializer({"quiz": quiz.pk, "released_at": None, "release": log}).data
        )

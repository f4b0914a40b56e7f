"""Grade passback for examiners: each student's LMS score sync, and re-sending failures."""

from typing import Any

from django.db import transaction
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import TextOnlyField
from lms.models import LtiScoreSync, SyncStatus
from lms.services.ags import score_syncs_of, score_syncs_resend
from lms.tasks import publish_later
from quizbank.access import access_quiz
from quizbank.models import Role

EXAMINERS = [Role.EXAMINER]


class ScoreSyncSerializer(serializers.ModelSerializer[LtiScoreSync]):
    username = TextOnlyField(source="user.username")
    line_item = TextOnlyField(source="line_item.url")
    status = serializers.ChoiceField(choices=SyncStatus.choices)

    class Meta:
        model = LtiScoreSync
        fields = [
            "id",
            "username",
            "line_item",
            "status",
            "tries",
            "last_error",
            "updated_at",
            "sent_payload",
            "sent_as_of",
        ]


class QuizScoreSyncsApi(APIView):
    @extend_schema(responses=ScoreSyncSerializer(many=True), operation_id="quiz_lms_scores")
    def get(self, request: Request, quiz_id: int) -> Response:
        """Scores sent (or to send) to LMS gradebooks, with each failure's error."""
        quiz = access_quiz(request.user, quiz_id, roles=EXAMINERS)
        return Response([ScoreSyncSerializer(row).data for row in score_syncs_of(quiz)])


class QuizScoreSyncsResendApi(APIView):
    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        resent = serializers.ListField(child=serializers.IntegerField())

    @extend_schema(request=None, responses=OutputSerializer, operation_id="quiz_lms_scores_resend")
    def post(self, request: Request, quiz_id: int) -> Response:
        """Send every failed score of the quiz again."""
        quiz = access_quiz(request.user, quiz_id, roles=EXAMINERS)
        ids = score_syncs_resend(quiz=quiz, now=timezone.now())
        transaction.on_commit(lambda: publish_later(ids), robust=True)
        return Response(self.OutputSerializer({"resent": ids}).data)

"""A quiz's marking policy: double marking and the moderation threshold (examiners)."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import BooleanOnlyField, NumberOnlyField
from grading.models.marking import QuizMarkingPolicy
from grading.services.marking.policy import marking_policy_set, quiz_marking_policy
from quizbank.access import access_quiz
from quizbank.models import Role


class PolicySerializer(serializers.Serializer[QuizMarkingPolicy]):
    double_marking = BooleanOnlyField()
    disagreement_threshold = NumberOnlyField(min_value=0.0, max_value=1.0)
    anonymous_marking = BooleanOnlyField(
        required=False,
        help_text='Markers see a pseudonym ("Candidate 7F3A0C") instead of the student\'s '
        "name until the answer's mark is final and released; left out: unchanged.",
    )


class MarkingPolicyApi(APIView):
    @extend_schema(responses=PolicySerializer, operation_id="marking_policy")
    def get(self, request: Request, quiz_id: int) -> Response:
        """The quiz's marking policy (site defaults when none was set)."""
        quiz = access_quiz(request.user, quiz_id, roles=[Role.EXAMINER])
        return Response(PolicySerializer(quiz_marking_policy(quiz)).data)

    @extend_schema(
        request=PolicySerializer, responses=PolicySerializer, operation_id="marking_policy_set"
    )
    def put(self, request: Request, quiz_id: int) -> Response:
        """Set double marking, the disagreement threshold (a share of the maximum) and
        anonymous marking."""
        quiz = access_quiz(request.user, quiz_id, roles=[Role.EXAMINER])
        data = PolicySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        policy = marking_policy_set(quiz=quiz, **data.validated_data)
        return Response(PolicySerializer(policy).data)

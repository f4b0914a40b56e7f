"""A course's topics under /api/courses/{id}/topics/: list them, add one (authors)."""

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import RegexOnlyField, TextOnlyField
from config.scopes import Scope
from quizbank.access import AUTHORS, access_course
from quizbank.bankfiles.schema import MAX_TOPIC_SLUG, SLUG_RE
from quizbank.models import Topic
from quizbank.services.topics import MAX_TITLE, SLUG_RULE, topic_create


class TopicSerializer(serializers.ModelSerializer[Topic]):
    class Meta:
        model = Topic
        fields = ["id", "slug", "title", "description", "position"]


class CourseTopicsApi(APIView):
    # The bank's: whoever may read and write its questions (and build quizzes from them).
    client_scopes = {
        "GET": (Scope.MANAGE_QUESTIONS, Scope.MANAGE_QUIZZES),
        "POST": (Scope.MANAGE_QUESTIONS,),
    }

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        title = TextOnlyField(max_length=MAX_TITLE)
        slug = RegexOnlyField(
            SLUG_RE.pattern,
            max_length=MAX_TOPIC_SLUG,
            required=False,
            error_messages={"invalid": f"Not a slug: {SLUG_RULE}."},
            help_text=f"{SLUG_RULE[:1].upper()}{SLUG_RULE[1:]} (`autograd-basics`); made "
            "from the title when left out.",
        )
        description = TextOnlyField(
            kind="multi_line", required=False, allow_blank=True, max_length=4000
        )

    @extend_schema(responses=TopicSerializer(many=True), operation_id="course_topics")
    def get(self, request: Request, course_id: int) -> Response:
        """The course's topics in their order (authors)."""
        course = access_course(request.user, course_id, roles=AUTHORS)
        return Response(TopicSerializer(course.topics.order_by("position", "slug"), many=True).data)

    @extend_schema(
        request=InputSerializer,
        responses={201: TopicSerializer},
        operation_id="course_topic_create",
    )
    def post(self, request: Request, course_id: int) -> Response:
        """Add a topic, last in the course's order (authors); 409 `slug_taken` for a slug the
        course already has."""
        course = access_course(request.user, course_id, roles=AUTHORS)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        topic = topic_create(course=course, **data.validated_data)
        return Response(TopicSerializer(topic).data, status=status.HTTP_201_CREATED)

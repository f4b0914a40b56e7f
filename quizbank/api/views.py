"""Bank endpoints: courses (members), questions (authors), quizzes (members).

Releasing a quiz's results is a grading rule (it depends on what is marked), so its
endpoint lives in `grading.api.release`."""

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quizbank.access import (
    access_course,
    access_question,
    access_quiz,
    courses_for,
    questions_for,
    quizzes_for,
)
from quizbank.api.serializers import (
    CourseSerializer,
    QuestionDetailSerializer,
    QuestionSummarySerializer,
    QuizSerializer,
)
from quizbank.models import Course, Question, Quiz


class CourseListApi(generics.ListAPIView[Course]):
    serializer_class = CourseSerializer
    filterset_fields = ["slug"]
    ordering_fields = ["slug", "title"]

    def get_queryset(self) -> QuerySet[Course]:
        return courses_for(self.request.user).order_by("slug")


class CourseDetailApi(APIView):
    @extend_schema(responses=CourseSerializer, operation_id="course_detail")
    def get(self, request: Request, course_id: int) -> Response:
        return Response(CourseSerializer(access_course(request.user, course_id)).data)


class QuestionListApi(generics.ListAPIView[Question]):
    """Questions of the courses the user authors."""

    serializer_class = QuestionSummarySerializer
    filterset_fields = {
        "course": ["exact"],
        "type": ["exact"],
        "difficulty": ["exact"],
        "topic__slug": ["exact"],
    }
    ordering_fields = ["slug", "title", "updated_at"]

    def get_queryset(self) -> QuerySet[Question]:
        return questions_for(self.request.user).order_by("course", "slug")


class QuestionDetailApi(APIView):
    @extend_schema(responses=QuestionDetailSerializer, operation_id="question_detail")
    def get(self, request: Request, question_id: int) -> Response:
        """A question with every version's full content (authors only)."""
        question = access_question(request.user, question_id)
        return Response(QuestionDetailSerializer(question).data)


class QuizListApi(generics.ListAPIView[Quiz]):
    serializer_class = QuizSerializer
    filterset_fields = ["course", "release_policy"]
    ordering_fields = ["slug", "title", "opens_at", "closes_at"]

    def get_queryset(self) -> QuerySet[Quiz]:
        return quizzes_for(self.request.user).order_by("course", "slug")


class QuizDetailApi(APIView):
    @extend_schema(responses=QuizSerializer, operation_id="quiz_detail")
    def get(self, request: Request, quiz_id: int) -> Response:
        return Response(QuizSerializer(access_quiz(request.user, quiz_id)).data)

"""Bank endpoints: courses (members), questions (authors), quizzes (members).

Writes (create and update courses and quizzes, open and close quizzes) take their
input from `serializers_write` and call `quizbank.services.quiz_write`. Releasing a
quiz's results is a grading rule (it depends on what is marked), so its endpoint lives
in `grading.api.release`."""

from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.scopes import ANY_SCOPE, Scope
from quizbank.access import (
    AUTHORS,
    access_course,
    access_question,
    access_quiz,
    course_roles,
    courses_for,
    questions_for,
    quizzes_for,
    require_course_creator,
    require_role_somewhere,
    user_id,
)
from quizbank.api.serializers import (
    CourseSerializer,
    QuestionDetailSerializer,
    QuestionSummarySerializer,
    QuizDetailSerializer,
    QuizSerializer,
)
from quizbank.api.serializers_write import (
    CourseInputSerializer,
    QuestionCreateInputSerializer,
    QuestionInputSerializer,
    QuizCreateInputSerializer,
    QuizInputSerializer,
    split_slots,
)
from quizbank.models import Course, Question, Quiz
from quizbank.services import question_authoring, quiz_write

COURSE_WRITERS = (Scope.MANAGE_ROSTER, Scope.MANAGE_QUIZZES)
QUIZ_WRITERS = (Scope.MANAGE_QUIZZES,)


class CourseListApi(generics.ListAPIView[Course]):
    serializer_class = CourseSerializer
    filterset_fields = ["slug"]
    ordering_fields = ["slug", "title"]
    client_scopes = {"GET": ANY_SCOPE, "POST": COURSE_WRITERS}

    def get_queryset(self) -> QuerySet[Course]:
        return courses_for(self.request.user).order_by("slug")

    @extend_schema(
        request=CourseInputSerializer,
        responses={201: CourseSerializer},
        operation_id="course_create",
    )
    def post(self, request: Request) -> Response:
        """Create a course; its creator becomes its author and examiner."""
        require_course_creator(request.user)
        data = CourseInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        course = quiz_write.course_create(owner_id=user_id(request.user), **data.validated_data)
        return Response(CourseSerializer(course).data, status=201)


class CourseDetailApi(APIView):
    client_scopes = {"GET": ANY_SCOPE, "PATCH": COURSE_WRITERS}

    @extend_schema(responses=CourseSerializer, operation_id="course_detail")
    def get(self, request: Request, course_id: int) -> Response:
        return Response(CourseSerializer(access_course(request.user, course_id)).data)

    @extend_schema(
        request=CourseInputSerializer(partial=True),
        responses=CourseSerializer,
        operation_id="course_update",
    )
    def patch(self, request: Request, course_id: int) -> Response:
        """Change the course's title or description (authors)."""
        course = access_course(request.user, course_id, roles=AUTHORS)
        data = CourseInputSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        course = quiz_write.course_update(course=course, data=data.validated_data)
        return Response(CourseSerializer(course).data)


class QuestionListApi(generics.ListAPIView[Question]):
    """Questions of the courses the user authors; POST writes a new one."""

    serializer_class = QuestionSummarySerializer
    filterset_fields = {
        "course": ["exact"],
        "type": ["exact"],
        "difficulty": ["exact"],
        "topic__slug": ["exact"],
    }
    ordering_fields = ["slug", "title", "updated_at"]
    client_scopes = {
        "GET": (Scope.MANAGE_QUESTIONS, Scope.MANAGE_QUIZZES),
        "POST": (Scope.MANAGE_QUESTIONS,),
    }

    def get_queryset(self) -> QuerySet[Question]:
        return questions_for(self.request.user).order_by("course", "slug")

    @extend_schema(
        request=QuestionCreateInputSerializer,
        responses={201: QuestionDetailSerializer},
        operation_id="question_create",
    )
    def post(self, request: Request) -> Response:
        """Write a new question into a course you author: its version 1."""
        require_role_somewhere(request.user, AUTHORS)
        data = QuestionCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        course = access_course(request.user, data.validated_data["course"], roles=AUTHORS)
        saved = question_authoring.question_save(
            course=course,
            slug=data.validated_data["slug"],
            topic_slug=data.validated_data["topic"],
            content=data.validated_data["content"],
            user=request.user if isinstance(request.user, User) else None,
        )
        return Response(QuestionDetailSerializer(saved.question).data, status=201)


class QuestionDetailApi(APIView):
    client_scopes = {"GET": (Scope.MANAGE_QUESTIONS,), "PUT": (Scope.MANAGE_QUESTIONS,)}

    @extend_schema(responses=QuestionDetailSerializer, operation_id="question_detail")
    def get(self, request: Request, question_id: int) -> Response:
        """A question with every version's full content (authors only)."""
        question = access_question(request.user, question_id)
        return Response(QuestionDetailSerializer(question).data)

    @extend_schema(
        request=QuestionInputSerializer,
        responses=QuestionDetailSerializer,
        operation_id="question_update",
    )
    def put(self, request: Request, question_id: int) -> Response:
        """Store new content as the question's next version (none when nothing changed);
        attempts keep the version they drew."""
        question = access_question(request.user, question_id)
        data = QuestionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        saved = question_authoring.question_save(
            course=question.course,
            question=question,
            edited_version=data.validated_data.get("version"),
            topic_slug=data.validated_data["topic"],
            content=data.validated_data["content"],
            user=request.user if isinstance(request.user, User) else None,
        )
        return Response(QuestionDetailSerializer(saved.question).data)


def _for_authors(quiz: Quiz) -> dict[str, Any]:
    """The quiz as an endpoint only its authors reach returns it: with its slots."""
    return dict(QuizDetailSerializer(quiz, context={"author": True}).data)


class QuizListApi(generics.ListAPIView[Quiz]):
    serializer_class = QuizSerializer
    filterset_fields = ["course", "release_policy"]
    ordering_fields = ["slug", "title", "opens_at", "closes_at"]
    client_scopes = {"GET": ANY_SCOPE, "POST": QUIZ_WRITERS}

    def get_queryset(self) -> QuerySet[Quiz]:
        return quizzes_for(self.request.user).order_by("course", "slug")

    @extend_schema(
        request=QuizCreateInputSerializer,
        responses={201: QuizDetailSerializer},
        operation_id="quiz_create",
    )
    def post(self, request: Request) -> Response:
        """Create a quiz of a course you author, with its schedule and its slots (bank
        questions or pools)."""
        require_role_somewhere(request.user, AUTHORS)
        data = QuizCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        course = access_course(request.user, data.validated_data["course"], roles=AUTHORS)
        settings, slots = split_slots(data.validated_data)
        quiz = quiz_write.quiz_create(course=course, data=settings, slots=slots or [])
        return Response(_for_authors(quiz), status=201)


IF_MATCH = OpenApiParameter(
    "If-Match",
    {"type": "string", "maxLength": 1000},
    OpenApiParameter.HEADER,
    description="The quiz's `ETag` as you read it: the change is refused with 412 "
    "(`quiz_changed`) if the quiz has changed since. Without it the change is applied.",
)
ETAG = OpenApiParameter(
    "ETag",
    str,
    OpenApiParameter.HEADER,
    response=[200],
    description="The quiz's version, for `If-Match` (only to the course's authors).",
)


def _with_etag(reply: Response, quiz: Quiz) -> Response:
    reply["ETag"] = f'"{quiz_write.quiz_etag(quiz)}"'
    return reply


def _if_match(request: Request) -> list[str] | None:
    """The entity tags of the If-Match header (weak or strong); None when absent or `*`."""
    header = str(request.headers.get("If-Match", "")).strip()
    if not header or header == "*":
        return None
    tags = [tag.strip().removeprefix("W/").strip('"') for tag in header.split(",")]
    return [tag for tag in tags if tag]


class QuizDetailApi(APIView):
    client_scopes = {"GET": ANY_SCOPE, "PATCH": QUIZ_WRITERS}

    @extend_schema(responses=QuizDetailSerializer, operation_id="quiz_detail", parameters=[ETAG])
    def get(self, request: Request, quiz_id: int) -> Response:
        """The quiz's settings; its slots too for the course's authors."""
        quiz = access_quiz(request.user, quiz_id)
        author = any(role in AUTHORS for role in course_roles(request.user, quiz.course_id))
        reply = Response(QuizDetailSerializer(quiz, context={"author": author}).data)
        return _with_etag(reply, quiz) if author else reply

    @extend_schema(
        request=QuizInputSerializer(partial=True),
        responses=QuizDetailSerializer,
        operation_id="quiz_update",
        parameters=[IF_MATCH, ETAG],
    )
    def patch(self, request: Request, quiz_id: int) -> Response:
        """Change the quiz's settings and schedule; `slots` replaces its questions."""
        quiz = access_quiz(request.user, quiz_id, roles=AUTHORS)
        data = QuizInputSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        settings, slots = split_slots(data.validated_data)
        quiz = quiz_write.quiz_update(
            quiz=quiz, data=settings, slots=slots, seen_etags=_if_match(request)
        )
        return _with_etag(Response(_for_authors(quiz)), quiz)


class QuizOpenApi(APIView):
    client_scopes = {"POST": QUIZ_WRITERS}

    @extend_schema(request=None, responses=QuizDetailSerializer, operation_id="quiz_open")
    def post(self, request: Request, quiz_id: int) -> Response:
        """Open the quiz now (a closing time already past is cleared)."""
        quiz = access_quiz(request.user, quiz_id, roles=AUTHORS)
        return Response(_for_authors(quiz_write.quiz_open(quiz=quiz, now=timezone.now())))


class QuizCloseApi(APIView):
    client_scopes = {"POST": QUIZ_WRITERS}

    @extend_schema(request=None, responses=QuizDetailSerializer, operation_id="quiz_close")
    def post(self, request: Request, quiz_id: int) -> Response:
        """Close the quiz now: no attempt starts after this."""
        quiz = access_quiz(request.user, quiz_id, roles=AUTHORS)
        return Response(_for_authors(quiz_write.quiz_close(quiz=quiz, now=timezone.now())))

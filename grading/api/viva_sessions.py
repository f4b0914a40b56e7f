"""Live viva endpoints: list, start, view, draw a question, record notes and a mark, end."""

from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import Http404
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import BoundedIntegerField, IntegerOnlyField, SlugOnlyField, TextOnlyField
from grading.api.auth import signed_in_user
from grading.api.marking import MarkingResponseApi
from grading.api.marking_presenters import marking_view
from grading.api.marking_serializers import MarkInputSerializer
from grading.api.viva_filters import SessionRowSerializer, VivaSessionFilter
from grading.api.viva_presenters import viva_session_view
from grading.models.marking import Mark
from grading.models.viva_sessions import VivaSession
from grading.selectors.marking import access_marking_response
from grading.selectors.viva_sessions import access_viva_session, viva_sessions_for
from grading.services.marking.marks import MarkInput, mark_create, mark_update
from grading.services.viva_sessions import (
    MAX_NOTES_CHARS,
    Pool,
    viva_session_cancel,
    viva_session_discard,
    viva_session_draw,
    viva_session_end,
    viva_session_notes,
    viva_session_start,
)
from quizbank.access import access_quiz, require_role_somewhere
from quizbank.models import Difficulty, Role
from quizbank.selectors import course_student

Question = MarkingResponseApi.OutputSerializer


class SessionSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    quiz = serializers.IntegerField()
    attempt = serializers.IntegerField()
    student = TextOnlyField()
    examiner = TextOnlyField()
    status = TextOnlyField()
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    attempt_status = TextOnlyField()
    score = serializers.DecimalField(max_digits=9, decimal_places=3, allow_null=True)
    max_score = serializers.DecimalField(max_digits=9, decimal_places=3)
    questions = Question(many=True)


def _session_reply(request: Request, session_id: int, code: int = 200) -> Response:
    session = access_viva_session(request.user, session_id)
    return Response(SessionSerializer(viva_session_view(request.user, session)).data, status=code)


class VivaSessionListStartApi(generics.ListAPIView[VivaSession]):
    """Sessions in the examiner's courses, newest first; POST starts one."""

    serializer_class = SessionRowSerializer
    filterset_class = VivaSessionFilter
    ordering_fields = ["started_at"]
    ordering = ["-started_at"]

    def get_queryset(self) -> QuerySet[VivaSession]:
        return viva_sessions_for(self.request.user).order_by("-started_at", "-id")

    @extend_schema(operation_id="viva_session_list")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Live viva sessions of the courses you examine (all for staff)."""
        return super().get(request, *args, **kwargs)

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        quiz = IntegerOnlyField()
        student = IntegerOnlyField()

    @extend_schema(
        request=InputSerializer,
        responses={201: SessionSerializer},
        operation_id="viva_session_start",
    )
    def post(self, request: Request) -> Response:
        """Start a live viva for a student of the quiz's course (examiners)."""
        require_role_somewhere(request.user, [Role.EXAMINER])
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        quiz = access_quiz(request.user, data.validated_data["quiz"], roles=[Role.EXAMINER])
        student = course_student(quiz.course_id, pk=data.validated_data["student"])
        if student is None:
            raise Http404(f"No student {data.validated_data['student']} in this course.")
        examiner = signed_in_user(request)
        session = viva_session_start(
            quiz=quiz, student=student, examiner=examiner, now=timezone.now()
        )
        return _session_reply(request, session.pk, status.HTTP_201_CREATED)


class VivaSessionDetailApi(APIView):
    @extend_schema(responses=SessionSerializer, operation_id="viva_session_detail")
    def get(self, request: Request, session_id: int) -> Response:
        """The session with every question asked, its notes, rubric and marks."""
        return _session_reply(request, session_id)

    @extend_schema(request=None, responses={204: None}, operation_id="viva_session_cancel")
    def delete(self, request: Request, session_id: int) -> Response:
        """Cancel an open viva in which no question is asked (409 `viva_question_kept`
        otherwise): the session and its attempt are removed, so the student has that
        attempt again."""
        viva_session_cancel(session=access_viva_session(request.user, session_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class VivaDrawApi(APIView):
    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        tag = SlugOnlyField(default="", allow_blank=True)
        topic = IntegerOnlyField(default=None, allow_null=True)
        difficulty = serializers.ChoiceField(
            choices=Difficulty.choices, default="", allow_blank=True
        )

    @extend_schema(request=InputSerializer, responses={201: Question}, operation_id="viva_draw")
    def post(self, request: Request, session_id: int) -> Response:
        """Draw a question from the pool (tag, topic, difficulty), never one already asked."""
        session = access_viva_session(request.user, session_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        pool = Pool(tag=v["tag"], topic_id=v["topic"], difficulty=v["difficulty"])
        drawn = viva_session_draw(session=session, pool=pool, now=timezone.now())
        view = marking_view(
            request.user, access_marking_response(request.user, drawn.pk), anonymous=False
        )
        return Response(Question(view).data, status=status.HTTP_201_CREATED)


class VivaRecordApi(APIView):
    class InputSerializer(MarkInputSerializer):
        notes = TextOnlyField(
            kind="multi_line", default="", allow_blank=True, max_length=MAX_NOTES_CHARS
        )
        levels = serializers.ListField(child=IntegerOnlyField(), required=False)
        id = IntegerOnlyField(
            required=False,
            help_text="The `id` of the question meant (as the session lists it): 409 "
            "`viva_question_changed` when another question is at this position by now. "
            "Optional for older clients; without it the recording is not checked.",
        )

    @extend_schema(request=InputSerializer, responses=Question, operation_id="viva_record")
    def post(self, request: Request, session_id: int, position: int) -> Response:
        """Record notes and, with `levels`, the examiner's rubric mark of one asked question."""
        session = access_viva_session(request.user, session_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        answer = viva_session_notes(
            session=session,
            position=position,
            notes=data.validated_data["notes"],
            drawn_id=data.validated_data.get("id"),
        )
        if "levels" in data.validated_data:
            _record_mark(answer.pk, signed_in_user(request), data.to_input())
        view = marking_view(
            request.user, access_marking_response(request.user, answer.pk), anonymous=False
        )
        return Response(Question(view).data)

    class DiscardQuerySerializer(serializers.Serializer[dict[str, Any]]):
        id = BoundedIntegerField(required=False)

    @extend_schema(
        request=None,
        parameters=[
            OpenApiParameter(
                "id",
                int,
                description="The `id` of the question meant (as the session lists it): 409 "
                "`viva_question_changed` when another question is at this position by now. "
                "Optional for older clients; without it the put-back is not checked.",
            )
        ],
        responses=SessionSerializer,
        operation_id="viva_discard",
    )
    def delete(self, request: Request, session_id: int, position: int) -> Response:
        """Put the last question drawn back unasked (not once it is marked): it leaves the
        attempt and is not drawn again in this session."""
        session = access_viva_session(request.user, session_id)
        query = self.DiscardQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        viva_session_discard(
            session=session,
            position=position,
            now=timezone.now(),
            drawn_id=query.validated_data.get("id"),
        )
        return _session_reply(request, session_id)


def _record_mark(response_id: int, examiner: User, mark: MarkInput) -> None:
    own = Mark.objects.filter(response_id=response_id, marker=examiner).first()
    if own is None:
        mark_create(response_id=response_id, marker=examiner, data=mark, now=timezone.now())
    else:
        mark_update(mark_id=own.pk, marker=examiner, data=mark, now=timezone.now())


class VivaEndApi(APIView):
    @extend_schema(request=None, responses=SessionSerializer, operation_id="viva_session_end")
    def post(self, request: Request, session_id: int) -> Response:
        """End the session; it becomes a graded attempt once every question is marked."""
        session = access_viva_session(request.user, session_id)
        viva_session_end(session=session, now=timezone.now())
        return _session_reply(request, session_id)

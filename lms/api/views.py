"""Provisioning (users, memberships) and grades endpoints for LMSs and other API clients."""

from dataclasses import asdict

from django.db.models import QuerySet
from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.scopes import Scope
from grading.services.exports import csv_text
from lms.api.context import caller_namespace, required_client
from lms.api.serializers import (
    GradeParamsSerializer,
    GradeRowSerializer,
    MemberSerializer,
    RosterInputSerializer,
    RosterResultSerializer,
    UserInputSerializer,
    UserOutputSerializer,
    UserUpdateSerializer,
)
from lms.models import ExternalIdentity
from lms.services import users
from lms.services.grades import GradeRow, quiz_grade_rows
from lms.services.roster import MembershipChange, course_roster, memberships_upsert
from quizbank.access import AUTHORS, access_course, access_quiz
from quizbank.models import Role

ROSTER = (Scope.MANAGE_ROSTER,)
GRADES = (Scope.READ_GRADES,)


class UserListApi(generics.ListAPIView[ExternalIdentity]):
    """The users this API client provisioned (API client tokens only)."""

    serializer_class = UserOutputSerializer
    filterset_fields = ["external_id"]
    ordering_fields = ["external_id"]
    client_scopes = {"GET": ROSTER, "POST": ROSTER}

    def get_queryset(self) -> QuerySet[ExternalIdentity]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no client
            return ExternalIdentity.objects.none()
        return users.users_of(required_client(self.request).namespace).order_by("external_id")

    @extend_schema(
        request=UserInputSerializer,
        responses={201: UserOutputSerializer},
        operation_id="user_create",
    )
    def post(self, request: Request) -> Response:
        """Create a user with an external id unique to this client."""
        client = required_client(request)
        data = UserInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        identity = users.user_create(namespace=client.namespace, **data.validated_data)
        return Response(UserOutputSerializer(identity).data, status=status.HTTP_201_CREATED)


class UserDetailApi(APIView):
    client_scopes = {"GET": ROSTER, "PATCH": ROSTER, "DELETE": ROSTER}

    def _identity(self, request: Request, external_id: str) -> ExternalIdentity:
        namespace = required_client(request).namespace
        return users.identity_get(namespace=namespace, external_id=external_id)

    @extend_schema(responses=UserOutputSerializer, operation_id="user_detail")
    def get(self, request: Request, external_id: str) -> Response:
        return Response(UserOutputSerializer(self._identity(request, external_id)).data)

    @extend_schema(
        request=UserUpdateSerializer, responses=UserOutputSerializer, operation_id="user_update"
    )
    def patch(self, request: Request, external_id: str) -> Response:
        """Change the user's profile, password or `is_active`."""
        identity = self._identity(request, external_id)
        data = UserUpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        identity = users.user_update(identity=identity, **data.validated_data)
        return Response(UserOutputSerializer(identity).data)

    @extend_schema(request=None, responses=UserOutputSerializer, operation_id="user_deactivate")
    def delete(self, request: Request, external_id: str) -> Response:
        """Deactivate the user: every role goes; attempts and marks stay."""
        identity = users.user_deactivate(identity=self._identity(request, external_id))
        return Response(UserOutputSerializer(identity).data)


class CourseMembershipsApi(APIView):
    client_scopes = {"GET": ROSTER, "POST": ROSTER}

    @extend_schema(responses=MemberSerializer(many=True), operation_id="course_members")
    def get(self, request: Request, course_id: int) -> Response:
        """Members of the course that this client provisioned (authors)."""
        course = access_course(request.user, course_id, roles=AUTHORS)
        namespace = required_client(request).namespace
        rows = [
            {"external_id": e, "username": u, "role": r}
            for e, u, r in course_roster(course=course, namespace=namespace)
        ]
        return Response([MemberSerializer(row).data for row in rows])

    @extend_schema(
        request=RosterInputSerializer,
        responses=RosterResultSerializer,
        operation_id="course_members_upsert",
    )
    def post(self, request: Request, course_id: int) -> Response:
        """Set each listed user's roles in the course (all or nothing; authors)."""
        course = access_course(request.user, course_id, roles=AUTHORS)
        namespace = required_client(request).namespace
        data = RosterInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        changes = [
            MembershipChange(m["external_id"], frozenset(m["roles"]))
            for m in data.validated_data["memberships"]
        ]
        result = memberships_upsert(course=course, namespace=namespace, changes=changes)
        return Response(RosterResultSerializer(asdict(result)).data)


def _grade_rows(request: Request, quiz_id: int) -> list[GradeRow]:
    quiz = access_quiz(request.user, quiz_id, roles=[Role.EXAMINER])
    params = GradeParamsSerializer(data=request.query_params)
    params.is_valid(raise_exception=True)
    return quiz_grade_rows(
        quiz=quiz,
        namespace=caller_namespace(request),
        now=timezone.now(),
        updated_since=params.validated_data.get("updated_since"),
    )


class QuizGradeRowsApi(APIView):
    client_scopes = {"GET": GRADES}

    @extend_schema(
        parameters=[GradeParamsSerializer],
        responses=GradeRowSerializer(many=True),
        operation_id="quiz_grade_rows",
    )
    def get(self, request: Request, quiz_id: int) -> Response:
        """One row per student: external id, score, max score, status, release state and
        when the row last changed (examiners)."""
        rows = _grade_rows(request, quiz_id)
        return Response([GradeRowSerializer(asdict(row)).data for row in rows])


CSV = {(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV with a header row")}
CSV_COLUMNS = [
    "user_id",
    "username",
    "external_id",
    "score",
    "max_score",
    "status",
    "released",
    "updated_at",
]


class QuizGradeRowsCsvApi(APIView):
    client_scopes = {"GET": GRADES}

    @extend_schema(
        parameters=[GradeParamsSerializer], responses=CSV, operation_id="quiz_grade_rows_csv"
    )
    def get(self, request: Request, quiz_id: int) -> HttpResponse:
        """The same rows as CSV."""
        rows = [
            [getattr(r, c) if c != "updated_at" else _iso(r) for c in CSV_COLUMNS]
            for r in _grade_rows(request, quiz_id)
        ]
        reply = HttpResponse(csv_text(CSV_COLUMNS, rows), content_type="text/csv; charset=utf-8")
        reply["Content-Disposition"] = f'attachment; filename="quiz-{quiz_id}-grades.csv"'
        return reply


def _iso(row: GradeRow) -> str | None:
    return None if row.updated_at is None else row.updated_at.isoformat()

"""Enrol students in a course, or remove them (authors): a list of usernames or e-mails."""

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import TextOnlyField
from quizbank.access import AUTHORS, access_course
from quizbank.services.enrolment import (
    MAX_ENTRIES,
    course_enrol_students,
    course_unenrol_students,
)

AMBIGUOUS_HELP = (
    "Entries several accounts match ignoring case (usernames differing only in case, one "
    "e-mail on two accounts): nothing was done for them; give the exact username."
)


class EnrolmentOutput(serializers.Serializer[Any]):
    added = serializers.ListField(child=TextOnlyField())
    already = serializers.ListField(child=TextOnlyField())
    unknown = serializers.ListField(child=TextOnlyField())
    ambiguous = serializers.ListField(child=TextOnlyField(), help_text=AMBIGUOUS_HELP)
    staff = serializers.ListField(
        child=TextOnlyField(),
        help_text="Of those added, who also author or examine the course.",
    )


class EntriesInput(serializers.Serializer[Any]):
    entries = serializers.ListField(child=TextOnlyField(max_length=254), max_length=MAX_ENTRIES)


class UnenrolmentOutput(serializers.Serializer[Any]):
    removed = serializers.ListField(child=TextOnlyField())
    not_enrolled = serializers.ListField(
        child=TextOnlyField(), help_text="Accounts that were not students of the course."
    )
    unknown = serializers.ListField(child=TextOnlyField())
    ambiguous = serializers.ListField(child=TextOnlyField(), help_text=AMBIGUOUS_HELP)


class CourseEnrolApi(APIView):
    InputSerializer = EntriesInput

    @extend_schema(request=InputSerializer, responses=EnrolmentOutput, operation_id="course_enrol")
    def post(self, request: Request, course_id: int) -> Response:
        """Make existing accounts students of the course; unknown entries are listed back."""
        course = access_course(request.user, course_id, roles=AUTHORS)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = course_enrol_students(course=course, entries=data.validated_data["entries"])
        return Response(EnrolmentOutput(result).data)


class CourseUnenrolApi(APIView):
    InputSerializer = EntriesInput

    @extend_schema(
        request=InputSerializer, responses=UnenrolmentOutput, operation_id="course_unenrol"
    )
    def post(self, request: Request, course_id: int) -> Response:
        """Remove students from the course: they start none of its quizzes from then on; their
        attempts and grades are kept, and an open attempt can still be submitted."""
        course = access_course(request.user, course_id, roles=AUTHORS)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = course_unenrol_students(course=course, entries=data.validated_data["entries"])
        return Response(UnenrolmentOutput(result).data)

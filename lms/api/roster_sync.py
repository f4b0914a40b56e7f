"""Roster sync from the LMS (LTI Names and Role Provisioning), for a course's examiners."""

from dataclasses import asdict
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.schema import ErrorSerializer
from lms.services.lti_roster import roster_sync
from quizbank.access import access_course
from quizbank.models import Role


class CourseRosterSyncApi(APIView):
    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        members = serializers.IntegerField(help_text="Members the platform listed.")
        added = serializers.IntegerField(help_text="Course roles given.")
        removed = serializers.IntegerField(help_text="Roles taken from inactive members.")

    @extend_schema(
        request=None,
        responses={200: OutputSerializer(many=True), 502: ErrorSerializer},
        operation_id="course_lti_roster_sync",
    )
    def post(self, request: Request, course_id: int) -> Response:
        """Bring the roster over from every LMS that launched into the course (502
        `roster_not_fetched` when a platform does not answer)."""
        course = access_course(request.user, course_id, roles=[Role.EXAMINER])
        return Response([self.OutputSerializer(asdict(r)).data for r in roster_sync(course=course)])

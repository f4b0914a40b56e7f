"""Bank import and export in Moodle XML, GIFT and QTI, for the course's authors.

The import takes multipart/form-data (the file as it came from the other system); every
other endpoint of the API takes JSON. docs/interchange.md says what maps to what."""

from typing import Any

from django.contrib.auth.models import User
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import TextOnlyField
from quizbank.access import AUTHORS, access_course
from quizbank.errors import FileTooLarge
from quizbank.interchange.formats import FORMATS
from quizbank.interchange.limits import max_file_bytes
from quizbank.services.interchange import interchange_export, interchange_import

# Moodle XML, GIFT, a QTI package.
EXPORT_CONTENT_TYPES = ("application/xml", "text/plain", "application/zip")


class SkippedSerializer(serializers.Serializer[dict[str, Any]]):
    location = TextOnlyField(help_text="Question number, name and line, or item path.")
    reason = TextOnlyField()


class ImportedQuestionSerializer(serializers.Serializer[dict[str, Any]]):
    slug = TextOnlyField()
    title = TextOnlyField()
    type = TextOnlyField()
    topic = TextOnlyField()
    location = TextOnlyField()
    outcome = serializers.ChoiceField(choices=["created", "updated", "unchanged"])
    notes = serializers.ListField(
        child=TextOnlyField(), help_text="What the file had that the bank does not keep."
    )


class BankImportApi(APIView):
    parser_classes = [MultiPartParser]

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        format = serializers.ChoiceField(choices=FORMATS)
        file = serializers.FileField(help_text="At most INTERCHANGE_MAX_FILE_BYTES.")
        dry_run = serializers.BooleanField(default=False, help_text="Report; write nothing.")

    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        course = TextOnlyField()
        format = TextOnlyField()
        dry_run = serializers.BooleanField()
        counts = serializers.DictField(child=serializers.IntegerField())
        by_type = serializers.DictField(child=serializers.IntegerField())
        questions = ImportedQuestionSerializer(many=True)
        skipped = SkippedSerializer(many=True)

    @extend_schema(
        request={"multipart/form-data": InputSerializer},
        responses={200: OutputSerializer, 201: OutputSerializer},
        operation_id="course_bank_import",
    )
    def post(self, request: Request, course_id: int) -> Response:
        """Import a Moodle XML, GIFT or QTI file into the course (authors): every question the
        bank can hold, in one transaction, or nothing; `skipped` says what was left out and
        why. A refused file (`file_refused`, `file_too_large`) writes nothing. 201 when the
        import created or changed a question; 200 when it wrote nothing (a dry run, a file
        whose questions the bank holds already, or one whose every question was skipped)."""
        course = access_course(request.user, course_id, AUTHORS)
        params = self.InputSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        upload = params.validated_data["file"]
        if upload.size > max_file_bytes():
            raise FileTooLarge(f"the file is over {max_file_bytes()} bytes")
        report = interchange_import(
            course=course,
            fmt=params.validated_data["format"],
            data=upload.read(),
            dry_run=params.validated_data["dry_run"],
            user=request.user if isinstance(request.user, User) else None,
        )
        code = status.HTTP_201_CREATED if report.wrote_anything() else status.HTTP_200_OK
        return Response(self.OutputSerializer(report.as_dict()).data, status=code)


class BankExportApi(APIView):
    class ParamsSerializer(serializers.Serializer[dict[str, Any]]):
        format = serializers.ChoiceField(choices=FORMATS)
        quiz = serializers.IntegerField(
            required=False,
            min_value=1,
            max_value=2**31 - 1,
            help_text="Only this quiz's questions.",
        )

    @extend_schema(
        parameters=[ParamsSerializer],
        responses={
            (200, content_type): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="The file; `X-Skipped-Questions` counts the questions left out.",
            )
            for content_type in EXPORT_CONTENT_TYPES
        },
        operation_id="course_bank_export",
    )
    def get(self, request: Request, course_id: int) -> HttpResponse:
        """The course's bank (or one quiz) as Moodle XML, GIFT or a QTI 3.0 package (authors)."""
        course = access_course(request.user, course_id, AUTHORS)
        params = self.ParamsSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        quiz = None
        if "quiz" in params.validated_data:
            quiz = course.quizzes.filter(pk=params.validated_data["quiz"]).first()
            if quiz is None:
                raise serializers.ValidationError({"quiz": ["No such quiz in this course."]})
        exported = interchange_export(course=course, fmt=params.validated_data["format"], quiz=quiz)
        reply = HttpResponse(exported.data, content_type=exported.content_type)
        reply["Content-Disposition"] = f'attachment; filename="{exported.filename}"'
        reply["X-Skipped-Questions"] = str(len(exported.skipped))
        return reply

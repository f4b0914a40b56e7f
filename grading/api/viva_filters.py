"""Filters and the row shape of the live viva session list."""

from django_filters import rest_framework as filters  # type: ignore[import-untyped]  # no stubs
from rest_framework import serializers

from config.fields import TextOnlyField
from config.filters import BoundedFilterSet, IdFilter, StrictBooleanFilter
from grading.models.viva_sessions import VivaSession, VivaSessionStatus


class VivaSessionFilter(BoundedFilterSet):
    course = IdFilter(field_name="attempt__quiz__course", help_text="Course id.")
    quiz = IdFilter(field_name="attempt__quiz", help_text="Quiz id.")
    student = IdFilter(field_name="attempt__user", help_text="Student's user id.")
    examiner = IdFilter(field_name="examiner", help_text="Examiner's user id.")
    status = filters.ChoiceFilter(choices=VivaSessionStatus.choices)
    # `exclude` turns "ended_at is null" round: ended=true keeps the sessions with an end time.
    ended = StrictBooleanFilter(
        field_name="ended_at",
        lookup_expr="isnull",
        exclude=True,
        help_text="Only ended (true) or still open (false) sessions.",
    )

    class Meta:
        model = VivaSession
        fields = ["course", "quiz", "student", "examiner", "status", "ended"]


class SessionRowSerializer(serializers.Serializer[VivaSession]):
    id = serializers.IntegerField()
    course = serializers.IntegerField(source="attempt.quiz.course_id")
    quiz = serializers.IntegerField(source="attempt.quiz_id")
    attempt = serializers.IntegerField(source="attempt_id")
    student_id = serializers.IntegerField(source="attempt.user_id")
    student = TextOnlyField(source="attempt.user.username")
    examiner_id = serializers.IntegerField()
    examiner = TextOnlyField(source="examiner.username")
    status = TextOnlyField()
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    questions = serializers.IntegerField(help_text="Questions drawn so far.")

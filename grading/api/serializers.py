"""Output and input serializers of the attempt API (explicit field allow-lists)."""

from typing import Any

from rest_framework import serializers

from config.fields import TextOnlyField
from grading.models import Attempt

PENDING_ANSWER = (
    "Waiting for the runner or an examiner: the answer has no score yet (not a score of 0)."
)
PENDING_ATTEMPT = "Some answer is still waiting for the runner or an examiner."
TOTAL = "On release; a student sees no total while the attempt is pending."
UPDATED_AT = "When the score last changed after it was released (null: never changed)."
PREVIOUS_SCORE = "The score shown before that change (null: never changed)."


class StudentChoiceSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    text = TextOnlyField(help_text="The choice as written (Markdown).")
    html = TextOnlyField(help_text="The choice rendered to sanitised HTML.")


class StudentQuestionSerializer(serializers.Serializer[dict[str, Any]]):
    """A question as a student sees it; only these fields ever leave the server."""

    type = TextOnlyField()
    title = TextOnlyField()
    prompt_html = TextOnlyField()
    points = serializers.DecimalField(max_digits=6, decimal_places=2)
    choices = StudentChoiceSerializer(many=True, required=False)
    unit = TextOnlyField(required=False)
    entry_point = TextOnlyField(required=False)
    starter_code = TextOnlyField(required=False)
    mode = TextOnlyField(required=False)


class ResponseOutputSerializer(serializers.Serializer[dict[str, Any]]):
    position = serializers.IntegerField()
    question = StudentQuestionSerializer()
    answer = serializers.JSONField(allow_null=True)
    version = serializers.IntegerField()
    saved_at = serializers.DateTimeField(allow_null=True)
    status = TextOnlyField()
    pending = serializers.BooleanField(help_text=PENDING_ANSWER)
    score = serializers.FloatField(allow_null=True, help_text="Share of the points; on release.")
    points_awarded = serializers.DecimalField(max_digits=9, decimal_places=3, allow_null=True)
    feedback = serializers.JSONField(allow_null=True, help_text="Shown on release only.")
    updated_at = serializers.DateTimeField(allow_null=True, help_text=UPDATED_AT)
    previous_score = serializers.FloatField(allow_null=True, help_text=PREVIOUS_SCORE)
    previous_points_awarded = serializers.DecimalField(
        max_digits=9, decimal_places=3, allow_null=True, help_text=PREVIOUS_SCORE
    )


class AttemptOutputSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    quiz = serializers.IntegerField()
    user = serializers.IntegerField()
    number = serializers.IntegerField()
    status = TextOnlyField()
    started_at = serializers.DateTimeField()
    deadline = serializers.DateTimeField(allow_null=True)
    answers_close_at = serializers.DateTimeField(allow_null=True)
    server_time = serializers.DateTimeField()
    submitted_at = serializers.DateTimeField(allow_null=True)
    auto_submitted = serializers.BooleanField()
    results_visible = serializers.BooleanField()
    pending = serializers.BooleanField(help_text=PENDING_ATTEMPT)
    score = serializers.DecimalField(
        max_digits=9, decimal_places=3, allow_null=True, help_text=TOTAL
    )
    final_score = serializers.DecimalField(
        max_digits=9, decimal_places=3, allow_null=True, help_text=TOTAL
    )
    max_score = serializers.DecimalField(max_digits=9, decimal_places=3)
    updated_at = serializers.DateTimeField(
        allow_null=True, help_text="The latest change of a mark after release, if any."
    )
    responses = ResponseOutputSerializer(many=True)


class AttemptSummarySerializer(serializers.Serializer[Attempt]):
    id = serializers.IntegerField()
    quiz = serializers.IntegerField(source="quiz_id")
    user = serializers.IntegerField(source="user_id")
    number = serializers.IntegerField()
    status = TextOnlyField()
    started_at = serializers.DateTimeField()
    deadline = serializers.DateTimeField(allow_null=True)
    submitted_at = serializers.DateTimeField(allow_null=True)

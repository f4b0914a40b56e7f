"""Serializers shared by the marking endpoints (explicit field lists)."""

from typing import Any

from rest_framework import serializers

from config.fields import BooleanOnlyField, IntegerOnlyField, NumberOnlyField, TextOnlyField
from grading.models.marking import Mark
from grading.services.marking.marks import TEXT_LIMITS, MarkInput


class MarkInputSerializer(serializers.Serializer[dict[str, Any]]):
    levels = serializers.ListField(child=IntegerOnlyField(), allow_empty=False)
    adjustment = NumberOnlyField(
        default=0.0, help_text="Points added to the rubric's (negative: taken off), in hundredths."
    )
    adjustment_reason = TextOnlyField(
        kind="multi_line", default="", allow_blank=True, max_length=TEXT_LIMITS["adjustment_reason"]
    )
    comment = TextOnlyField(
        kind="multi_line", default="", allow_blank=True, max_length=TEXT_LIMITS["comment"]
    )
    reason = TextOnlyField(
        kind="multi_line",
        default="",
        allow_blank=True,
        max_length=TEXT_LIMITS["reason"],
        help_text="Why the mark changes (kept in the marking history with the change).",
    )
    ask_second_mark = BooleanOnlyField(
        default=False,
        help_text=(
            "Also require a blind second mark, with this mark (not with a moderator's): "
            "the mark then never counts as final on its own."
        ),
    )

    def validate_adjustment(self, value: float) -> float:
        # Points are kept to hundredths everywhere (regrade requests, totals): 1e-7 is a typo.
        if round(value, 2) != value:
            raise serializers.ValidationError("Give the adjustment in hundredths of a point.")
        return value

    def to_input(self) -> MarkInput:
        data = self.validated_data
        return MarkInput(
            levels=list(data["levels"]),
            adjustment=float(data["adjustment"]),
            adjustment_reason=str(data["adjustment_reason"]),
            comment=str(data["comment"]),
            reason=str(data["reason"]),
            ask_second_mark=bool(data["ask_second_mark"]),
        )


class MarkOutputSerializer(serializers.ModelSerializer[Mark]):
    marker = TextOnlyField(source="marker.username")

    class Meta:
        model = Mark
        fields = [
            "id",
            "response",
            "role",
            "marker",
            "levels",
            "rubric_points",
            "adjustment",
            "adjustment_reason",
            "comment",
            "score",
            "created_at",
            "updated_at",
        ]


class RubricLevelSerializer(serializers.Serializer[dict[str, Any]]):
    label = TextOnlyField()  # type: ignore[assignment]  # DRF's metaclass pops fields
    points = serializers.FloatField()
    descriptor = TextOnlyField(allow_blank=True)


class RubricCriterionSerializer(serializers.Serializer[dict[str, Any]]):
    criterion = TextOnlyField()
    description = TextOnlyField(allow_blank=True, required=False)
    levels = RubricLevelSerializer(many=True)


class MarkingStateSerializer(serializers.Serializer[dict[str, Any]]):
    status = TextOnlyField()
    second_requested = serializers.BooleanField()
    final_score = serializers.FloatField(allow_null=True)


class MarkChangeSerializer(serializers.Serializer[dict[str, Any]]):
    mark = serializers.IntegerField(source="mark_id")
    actor = TextOnlyField(source="actor.username")
    before = serializers.JSONField(allow_null=True)
    after = serializers.JSONField()
    reason = TextOnlyField(allow_blank=True, help_text="The examiner's reason, if given.")
    created_at = serializers.DateTimeField()


class ScoreChangeSerializer(serializers.Serializer[dict[str, Any]]):
    actor = TextOnlyField(source="actor.username", allow_null=True, default=None)
    source = TextOnlyField()  # type: ignore[assignment]  # DRF's metaclass pops fields
    before = serializers.FloatField(allow_null=True)
    after = serializers.FloatField(allow_null=True)
    reason = TextOnlyField(allow_blank=True)
    regrade_run = serializers.IntegerField(source="regrade_run_id", allow_null=True)
    created_at = serializers.DateTimeField()
    after_release = serializers.BooleanField(
        help_text="Made after the student was shown the result: they see it as an update."
    )

"""Input serializers of the bank API's writes (courses, quizzes and their slots)."""

from datetime import timedelta
from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from config.fields import (
    BooleanOnlyField,
    DurationOnlyField,
    IntegerOnlyField,
    NumberOnlyField,
    SlugOnlyField,
    TextOnlyField,
)
from quizbank.models import Difficulty, GradingMethod, ReleasePolicy
from quizbank.services.quiz_access import MAX_GRACE_PERIOD, MAX_TIME_LIMIT
from quizbank.services.quiz_write import (
    MAX_DESCRIPTION,
    MAX_SLOT_POINTS,
    MIN_SLOT_POINTS,
    SlotSpec,
)

MAX_ID = 2**63 - 1


class CourseInputSerializer(serializers.Serializer[dict[str, Any]]):
    slug = SlugOnlyField(max_length=80)
    title = TextOnlyField(max_length=200)
    description = TextOnlyField(
        kind="multi_line", max_length=MAX_DESCRIPTION, allow_blank=True, required=False
    )


class SlotInputSerializer(serializers.Serializer[dict[str, Any]]):
    """A fixed bank question (`question`), or a pool: a tag, topic or difficulty; `points`
    overrides what each question of the slot is worth in this quiz."""

    position = IntegerOnlyField(
        min_value=0,
        max_value=MAX_ID,
        required=False,
        help_text="Optional: slots are kept in list order, and a position, if sent (as read), "
        "must be the slot's index.",
    )
    question = IntegerOnlyField(
        min_value=1, max_value=MAX_ID, required=False, allow_null=True, default=None
    )
    draw_count = IntegerOnlyField(min_value=1, max_value=500, default=1)
    pool_tag = SlugOnlyField(max_length=80, required=False, default="", allow_blank=True)
    pool_topic = SlugOnlyField(
        max_length=80,
        required=False,
        default="",
        allow_blank=True,
        help_text="A topic slug of the quiz's course.",
    )
    pool_difficulty = serializers.ChoiceField(
        choices=Difficulty.choices, allow_blank=True, required=False, default=""
    )
    points = serializers.DecimalField(
        max_digits=6,
        decimal_places=2,
        min_value=MIN_SLOT_POINTS,
        max_value=MAX_SLOT_POINTS,
        allow_null=True,
        required=False,
        default=None,
        coerce_to_string=False,  # the schema then says a number, with its bounds
        help_text="What each question of this slot is worth in the quiz, with at most 2 "
        "decimals; null: its own points.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # Defaults are not filled in under a partial update (PATCH), so read with get().
        pool = attrs.get("pool_tag") or attrs.get("pool_topic") or attrs.get("pool_difficulty")
        if attrs.get("question") is not None and (pool or attrs.get("draw_count", 1) != 1):
            raise serializers.ValidationError("A slot is a question or a pool, not both.")
        return attrs


_POOL_FIELDS = ("pool_tag", "pool_topic", "pool_difficulty")


class FixedSlotInputSerializer(SlotInputSerializer):
    """A slot of one bank question (the schema's first shape of a slot): no pool named."""

    question = IntegerOnlyField(min_value=1, max_value=MAX_ID)
    draw_count = IntegerOnlyField(min_value=1, max_value=1, required=False)
    # Each pool field empty at most (DRF's metaclass drops the fields set to None).
    pool_tag = pool_topic = pool_difficulty = None  # type: ignore[assignment]
    schema_extra = {
        "properties": {name: {"type": "string", "maxLength": 0} for name in _POOL_FIELDS}
    }


class PoolSlotInputSerializer(SlotInputSerializer):
    """A pool (the schema's second shape of a slot): `draw_count` questions drawn from
    those of a tag, a topic or a difficulty, at least one of them named; no question."""

    question = None  # type: ignore[assignment]  # DRF's metaclass drops it
    schema_extra = {
        "properties": {"question": {"nullable": True, "not": {}}},  # null at most
        "anyOf": [
            {"required": [name], "properties": {name: {"minLength": 1}}} for name in _POOL_FIELDS
        ],
    }


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="SlotInput",
        serializers=[FixedSlotInputSerializer, PoolSlotInputSerializer],
        resource_type_field_name=None,
        many=True,
    )
)
class SlotListField(serializers.ListField):
    """The slots, each shown in the schema as one of its two shapes."""


class QuizInputSerializer(serializers.Serializer[dict[str, Any]]):
    slug = SlugOnlyField(max_length=80)
    title = TextOnlyField(max_length=200)
    description = TextOnlyField(
        kind="multi_line", max_length=MAX_DESCRIPTION, allow_blank=True, required=False
    )
    time_limit = DurationOnlyField(
        allow_null=True, required=False, min_value=timedelta(seconds=1), max_value=MAX_TIME_LIMIT
    )
    opens_at = serializers.DateTimeField(allow_null=True, required=False)
    closes_at = serializers.DateTimeField(allow_null=True, required=False)
    grace_period = DurationOnlyField(
        required=False, min_value=timedelta(0), max_value=MAX_GRACE_PERIOD
    )
    attempts_allowed = IntegerOnlyField(min_value=0, max_value=1000, required=False)
    grading_method = serializers.ChoiceField(choices=GradingMethod.choices, required=False)
    penalty_per_attempt = NumberOnlyField(min_value=0.0, max_value=1.0, required=False)
    shuffle_questions = BooleanOnlyField(required=False)
    shuffle_choices = BooleanOnlyField(required=False)
    release_policy = serializers.ChoiceField(choices=ReleasePolicy.choices, required=False)
    slots = SlotListField(
        child=SlotInputSerializer(),
        required=False,
        max_length=500,
        help_text="Replaces every slot (only before any attempt).",
    )

    def validate_slots(self, slots: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for index, slot in enumerate(slots):
            position = slot.pop("position", index)
            if position != index:
                message = (
                    f"Slots are kept in list order: this one is at index {index}, "
                    "so reorder the list rather than the positions."
                )
                # Keyed by index as ListField's own errors are (`slots[0].position`).
                errors: dict[Any, Any] = {index: {"position": [message]}}
                raise serializers.ValidationError(errors)
        return slots


class QuizCreateInputSerializer(QuizInputSerializer):
    course = IntegerOnlyField(min_value=1, max_value=MAX_ID)


def split_slots(data: dict[str, Any]) -> tuple[dict[str, Any], list[SlotSpec] | None]:
    """The quiz's settings, and its slots (None when the request named none)."""
    settings = dict(data)
    slots = settings.pop("slots", None)
    settings.pop("course", None)
    if slots is None:
        return settings, None
    return settings, [SlotSpec(**slot) for slot in slots]


class QuestionInputSerializer(serializers.Serializer[dict[str, Any]]):
    """A question's topic and its whole content in the bank format (docs/bank-format.md),
    code files under `files` and images under `assets`; checked as a bank import is."""

    topic = SlugOnlyField(max_length=80, help_text="A topic slug of the course.")
    content = serializers.DictField(help_text="The question as a bank file holds it.")
    version = IntegerOnlyField(
        min_value=1,
        max_value=MAX_ID,
        required=False,
        help_text="The version this edit began from: a newer one saved meanwhile makes it "
        "a 409 `question_changed` instead of overwriting it (leave it out to save anyway).",
    )


class QuestionCreateInputSerializer(QuestionInputSerializer):
    course = IntegerOnlyField(min_value=1, max_value=MAX_ID)
    slug = SlugOnlyField(max_length=80)

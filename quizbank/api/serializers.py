"""Output serializers of the bank API (courses, questions, quizzes)."""

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from quizbank.models import SLOT_FIELDS, Course, Question, QuestionVersion, Quiz, QuizSlot, Topic
from quizbank.services.quiz_write import EDITABLE_SETTINGS


class CourseSerializer(serializers.ModelSerializer[Course]):
    class Meta:
        model = Course
        fields = ["id", "slug", "title", "description"]


class QuestionSummarySerializer(serializers.ModelSerializer[Question]):
    topic: serializers.SlugRelatedField[Topic] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True
    )
    current_version = serializers.IntegerField(source="current_version.number", allow_null=True)

    class Meta:
        model = Question
        fields = [
            "id",
            "course",
            "topic",
            "slug",
            "type",
            "title",
            "difficulty",
            "tags",
            "points",
            "current_version",
            "updated_at",
        ]


class QuestionVersionSerializer(serializers.ModelSerializer[QuestionVersion]):
    """The full version for authors, answers and solution files included."""

    class Meta:
        model = QuestionVersion
        fields = ["id", "number", "content_hash", "content", "prompt_html", "created_at"]


class QuestionDetailSerializer(QuestionSummarySerializer):
    versions = QuestionVersionSerializer(many=True, read_only=True)

    class Meta(QuestionSummarySerializer.Meta):
        fields = [*QuestionSummarySerializer.Meta.fields, "objectives", "versions"]


class QuizSerializer(serializers.ModelSerializer[Quiz]):
    slot_count = serializers.SerializerMethodField()

    class Meta:
        model = Quiz
        fields = ["id", "course", *EDITABLE_SETTINGS, "released_at", "slot_count"]

    def get_slot_count(self, quiz: Quiz) -> int:
        return quiz.slots.count()


class QuizSlotSerializer(serializers.ModelSerializer[QuizSlot]):
    """A slot as the quiz writes take it (a client may send back what it read): a bank
    question, or a pool and how many to draw."""

    pool_topic = serializers.SerializerMethodField(help_text="A topic slug; empty: any topic.")

    class Meta:
        model = QuizSlot
        fields = list(SLOT_FIELDS)

    def get_pool_topic(self, slot: QuizSlot) -> str:
        return slot.pool_topic.slug if slot.pool_topic else ""


class QuizDetailSerializer(QuizSerializer):
    """One quiz; `slots` (how the quiz writes take them) for its course's authors only,
    null for everyone else: a fixed slot names its bank question."""

    slots = serializers.SerializerMethodField()

    class Meta(QuizSerializer.Meta):
        fields = [*QuizSerializer.Meta.fields, "slots"]

    @extend_schema_field(QuizSlotSerializer(many=True, allow_null=True))
    def get_slots(self, quiz: Quiz) -> list[dict[str, Any]] | None:
        if not self.context.get("author"):
            return None
        slots = quiz.slots.select_related("pool_topic").order_by("position")
        return list(QuizSlotSerializer(slots, many=True).data)

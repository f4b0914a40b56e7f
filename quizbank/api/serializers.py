"""Output serializers of the bank API (courses, questions, quizzes)."""

from rest_framework import serializers

from quizbank.models import Course, Question, QuestionVersion, Quiz, Topic


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
        fields = [
            "id",
            "course",
            "slug",
            "title",
            "description",
            "time_limit",
            "opens_at",
            "closes_at",
            "grace_period",
            "attempts_allowed",
            "grading_method",
            "penalty_per_attempt",
            "shuffle_questions",
            "release_policy",
            "released_at",
            "slot_count",
        ]

    def get_slot_count(self, quiz: Quiz) -> int:
        return quiz.slots.count()

"""Serializers of the provisioning and grades API."""

from typing import Any

from rest_framework import serializers

from config.fields import BooleanOnlyField, RegexOnlyField, TextOnlyField
from config.hashers import PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH
from lms.models import ExternalIdentity
from lms.services.grades import GRADE_STATUSES
from lms.services.users import EXTERNAL_ID_PATTERN
from quizbank.models import Role


class UserInputSerializer(serializers.Serializer[dict[str, Any]]):
    external_id = RegexOnlyField(
        EXTERNAL_ID_PATTERN,
        max_length=255,
        help_text="Unique per API client; no slashes, spaces or control characters.",
    )
    username = RegexOnlyField(
        r"^[\w.@+-]+\Z",
        max_length=150,
        required=False,
        help_text="Made from the external id when omitted.",
    )
    email = serializers.EmailField(max_length=254, required=False, allow_blank=True)
    first_name = TextOnlyField(max_length=150, required=False, allow_blank=True)
    last_name = TextOnlyField(max_length=150, required=False, allow_blank=True)
    password = TextOnlyField(
        kind="verbatim",
        min_length=PASSWORD_MIN_LENGTH,
        max_length=PASSWORD_MAX_LENGTH,
        required=False,
        write_only=True,
        trim_whitespace=False,
        help_text="Optional: lets the user sign in at /api/auth/token/; without one the user "
        "signs in through LTI only.",
    )


class UserUpdateSerializer(UserInputSerializer):
    external_id = None  # type: ignore[assignment]  # the id is in the path, never changed
    is_active = BooleanOnlyField(required=False)


class UserOutputSerializer(serializers.ModelSerializer[ExternalIdentity]):
    id = serializers.IntegerField(source="user.id", read_only=True)
    username = TextOnlyField(source="user.username")
    email = TextOnlyField(source="user.email")
    first_name = TextOnlyField(source="user.first_name")
    last_name = TextOnlyField(source="user.last_name")
    is_active = serializers.BooleanField(source="user.is_active")

    class Meta:
        model = ExternalIdentity
        fields = ["id", "external_id", "username", "email", "first_name", "last_name", "is_active"]


class MembershipInputSerializer(serializers.Serializer[dict[str, Any]]):
    external_id = TextOnlyField(max_length=255)
    roles = serializers.ListField(
        child=serializers.ChoiceField(choices=Role.values),
        max_length=3,
        help_text="Exactly the roles the user ends with in the course; [] removes them.",
    )


class RosterInputSerializer(serializers.Serializer[dict[str, Any]]):
    memberships = serializers.ListField(child=MembershipInputSerializer(), max_length=5000)

    def validate_memberships(self, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """One entry per user: two would leave the user with whichever came last."""
        first: dict[str, int] = {}
        for index, entry in enumerate(value):
            seen = first.setdefault(entry["external_id"], index)
            if seen != index:
                raise serializers.ValidationError(
                    f"items {seen} and {index} both list external_id {entry['external_id']!r}; "
                    "give each user once, with all their roles"
                )
        return value


class RosterResultSerializer(serializers.Serializer[dict[str, Any]]):
    added = serializers.IntegerField()
    removed = serializers.IntegerField()


class MemberSerializer(serializers.Serializer[dict[str, Any]]):
    external_id = TextOnlyField()
    username = TextOnlyField()
    role = TextOnlyField()


class GradeParamsSerializer(serializers.Serializer[dict[str, Any]]):
    updated_since = serializers.DateTimeField(
        required=False, help_text="Only rows changed at or after this time (ISO 8601)."
    )


class GradeRowSerializer(serializers.Serializer[dict[str, Any]]):
    user_id = serializers.IntegerField()
    username = TextOnlyField()
    external_id = TextOnlyField(allow_null=True)
    score = serializers.DecimalField(
        max_digits=9,
        decimal_places=3,
        allow_null=True,
        help_text="The quiz grade, released or not.",
    )
    max_score = serializers.DecimalField(max_digits=9, decimal_places=3, allow_null=True)
    status = serializers.ChoiceField(
        choices=GRADE_STATUSES,
        help_text="pending_manual: an answer waits for an examiner or the runner.",
    )
    released = serializers.BooleanField(help_text="Whether the student may see the score.")
    updated_at = serializers.DateTimeField(allow_null=True)

"""LTI platform registrations over the API (site administrators only)."""

from typing import Any

from django.http import Http404
from drf_spectacular.utils import extend_schema
from lti_tool.models import LtiRegistration
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.fields import BooleanOnlyField, IntegerOnlyField, TextOnlyField
from lms.services.lti_registry import registration_save, registration_view
from quizbank.access import require_site_admin

MAX_ID = 2**63 - 1


class GrantSerializer(serializers.Serializer[dict[str, Any]]):
    course = IntegerOnlyField(min_value=1, max_value=MAX_ID)
    context_id = TextOnlyField(
        max_length=255,
        allow_blank=True,
        default="",
        help_text="Only launches from this LMS course (its LTI context id) may open the "
        "course; empty: learners launching from any of the platform's courses, and no "
        "instructor (docs/lms.md).",
    )


class RegistrationSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField(read_only=True)
    name = TextOnlyField(max_length=255)
    issuer = TextOnlyField(max_length=255, help_text="The platform's `iss`.")
    client_id = TextOnlyField(max_length=255, help_text="Vivabank's id at the platform.")
    auth_url = serializers.URLField(max_length=200, help_text="OIDC authentication request URL.")
    token_url = serializers.URLField(max_length=200, help_text="OAuth2 access token URL.")
    keyset_url = serializers.URLField(
        max_length=200,
        required=False,
        allow_blank=True,
        help_text="The platform's JWKS URL (or empty, with `public_keys`).",
    )
    public_keys = TextOnlyField(
        kind="multi_line",
        max_length=20000,
        required=False,
        allow_blank=True,
        help_text="Instead of `keyset_url`: the platform's public keys pasted, a JWKS "
        'document ({"keys": [...]}) or one PEM public key; empty drops them.',
    )
    is_active = BooleanOnlyField(default=True)
    deployments = serializers.ListField(
        child=TextOnlyField(max_length=255),
        max_length=500,
        help_text="Exactly the deployment ids accepted (others are deactivated).",
    )
    courses = serializers.ListField(
        child=IntegerOnlyField(min_value=1, max_value=MAX_ID),
        max_length=5000,
        required=False,
        help_text="Exactly the course ids this platform may launch into (a grant already "
        "there keeps its context id; a new one is bound to none). Or send `grants`.",
    )
    grants = serializers.ListField(
        child=GrantSerializer(),
        max_length=5000,
        required=False,
        help_text="Exactly the courses this platform may launch into, each with the LMS "
        "course (context id) it is bound to. Or send `courses`.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "courses" in attrs and "grants" in attrs:
            message = "Send `courses` or `grants`, not both."
            raise serializers.ValidationError({"grants": [message]})
        courses = [grant["course"] for grant in attrs.get("grants", [])]
        if len(courses) != len(set(courses)):
            raise serializers.ValidationError({"grants": ["Each course may be granted once."]})
        return attrs


class RegistrationListApi(APIView):
    @extend_schema(responses=RegistrationSerializer(many=True), operation_id="lti_registrations")
    def get(self, request: Request) -> Response:
        """Every LTI platform registration."""
        require_site_admin(request.user)
        rows = LtiRegistration.objects.order_by("pk")
        return Response([RegistrationSerializer(registration_view(r)).data for r in rows])

    @extend_schema(
        request=RegistrationSerializer,
        responses={201: RegistrationSerializer},
        operation_id="lti_registration_create",
    )
    def post(self, request: Request) -> Response:
        """Register a platform, its deployments and the courses it may launch into."""
        require_site_admin(request.user)
        data = RegistrationSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        made = registration_save(registration=None, data=dict(data.validated_data))
        body = RegistrationSerializer(registration_view(made)).data
        return Response(body, status=status.HTTP_201_CREATED)


class RegistrationDetailApi(APIView):
    @extend_schema(
        request=RegistrationSerializer(partial=True),
        responses=RegistrationSerializer,
        operation_id="lti_registration_update",
    )
    def patch(self, request: Request, registration_id: int) -> Response:
        """Change a registration; `deployments` and `courses` (or `grants`), when given, are
        replaced."""
        require_site_admin(request.user)
        found = LtiRegistration.objects.filter(pk=registration_id).first()
        if found is None:
            raise Http404("No such registration.")
        data = RegistrationSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        saved = registration_save(registration=found, data=dict(data.validated_data))
        return Response(RegistrationSerializer(registration_view(saved)).data)

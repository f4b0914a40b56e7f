"""Webhook subscriptions of the calling API client, and their deliveries."""

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.scopes import Scope
from lms.api.context import required_client
from lms.models import WebhookDelivery, WebhookEvent, WebhookSubscription
from lms.services.webhooks import subscription_create

GRADES = (Scope.READ_GRADES,)


class SubscriptionSerializer(serializers.ModelSerializer[WebhookSubscription]):
    class Meta:
        model = WebhookSubscription
        fields = ["id", "url", "events", "active", "created_at"]


class SubscriptionInputSerializer(serializers.Serializer[dict[str, Any]]):
    url = serializers.URLField(max_length=1000, help_text="http(s) URL that receives POSTs.")
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=WebhookEvent.choices), min_length=1, max_length=4
    )


class SubscriptionCreatedSerializer(SubscriptionSerializer):
    class Meta(SubscriptionSerializer.Meta):
        fields = [*SubscriptionSerializer.Meta.fields, "secret"]


class DeliverySerializer(serializers.ModelSerializer[WebhookDelivery]):
    class Meta:
        model = WebhookDelivery
        fields = [
            "delivery_id",
            "event",
            "status",
            "tries",
            "last_status_code",
            "last_error",
            "created_at",
            "delivered_at",
            "payload",
        ]


def _subscription(request: Request, webhook_id: int) -> WebhookSubscription:
    client = required_client(request)
    found = WebhookSubscription.objects.filter(pk=webhook_id, client=client).first()
    if found is None:
        raise Http404("No such webhook.")
    return found


class WebhookListApi(generics.ListAPIView[WebhookSubscription]):
    """This API client's webhook subscriptions."""

    serializer_class = SubscriptionSerializer
    client_scopes = {"GET": GRADES, "POST": GRADES}
    ordering_fields = ["id", "created_at", "url", "active"]

    def get_queryset(self) -> QuerySet[WebhookSubscription]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no client
            return WebhookSubscription.objects.none()
        return WebhookSubscription.objects.filter(client=required_client(self.request)).order_by(
            "pk"
        )

    @extend_schema(
        request=SubscriptionInputSerializer,
        responses={201: SubscriptionCreatedSerializer},
        operation_id="webhook_create",
    )
    def post(self, request: Request) -> Response:
        """Subscribe a URL to events; the answer holds the signing secret, shown only now."""
        client = required_client(request)
        data = SubscriptionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        sub = subscription_create(client=client, **data.validated_data)
        return Response(SubscriptionCreatedSerializer(sub).data, status=status.HTTP_201_CREATED)


class WebhookDetailApi(APIView):
    client_scopes = {"DELETE": GRADES}

    @extend_schema(request=None, responses={204: None}, operation_id="webhook_delete")
    def delete(self, request: Request, webhook_id: int) -> Response:
        """Stop the subscription (its deliveries stay listed)."""
        sub = _subscription(request, webhook_id)
        sub.active = False
        sub.save(update_fields=["active"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookDeliveriesApi(generics.ListAPIView[WebhookDelivery]):
    """The subscription's deliveries, newest first, with their status."""

    serializer_class = DeliverySerializer
    client_scopes = {"GET": GRADES}
    filterset_fields = ["status", "event"]
    ordering_fields = ["created_at", "status", "event"]

    def get_queryset(self) -> QuerySet[WebhookDelivery]:
        if getattr(self, "swagger_fake_view", False):
            return WebhookDelivery.objects.none()
        sub = _subscription(self.request, int(self.kwargs["webhook_id"]))
        return sub.deliveries.order_by("-created_at", "-pk")

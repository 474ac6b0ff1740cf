from django.db import models
from rest_framework import serializers

from ..core.models import TimestampedModelBase


class IdempotentMixin(TimestampedModelBase):
    """Abstract: declares no table of its own."""

    idempotency_key = models.CharField(max_length=255)

    class Meta:
        abstract = True


class StripeWebhookEventSerializer(serializers.Serializer):
    """A serializer's fields are no table's columns."""

    stripe_event_id = serializers.CharField(max_length=255)
    event_type = serializers.CharField(max_length=128)


class StripeWebhookEvent(TimestampedModelBase):
    stripe_event_id = models.CharField(max_length=255, unique=True)
    event_type = models.CharField(max_length=128)

    class Meta:
        db_table = "stripe_webhook_events"

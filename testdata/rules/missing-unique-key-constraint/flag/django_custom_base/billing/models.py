from django.db import models

from ..core.models import TimestampedModelBase


class StripeWebhookEvent(TimestampedModelBase):  # expect: missing-unique-key-constraint
    """One row per Stripe event applied; the base is the project's own class."""

    stripe_event_id = models.CharField(max_length=255, db_index=True)
    event_type = models.CharField(max_length=128)

    class Meta:
        db_table = "stripe_webhook_events"

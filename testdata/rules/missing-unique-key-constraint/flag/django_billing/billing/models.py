from django.db import models


class StripeWebhookEvent(models.Model):  # expect: missing-unique-key-constraint
    """One row per Stripe event the webhook view has applied."""

    stripe_event_id = models.CharField(max_length=255, db_index=True)
    event_type = models.CharField(max_length=128)
    payload = models.JSONField()
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "stripe_webhook_events"
        ordering = ["-received_at"]

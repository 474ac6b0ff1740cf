from django.db import models


class StripeWebhookEvent(models.Model):
    """One row per Stripe event the webhook view has applied."""

    stripe_event_id = models.CharField(max_length=255)
    event_type = models.CharField(max_length=128)
    payload = models.JSONField()
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "stripe_webhook_events"
        ordering = ["-received_at"]
        constraints = [
            models.UniqueConstraint(fields=["stripe_event_id"], name="stripe_webhook_events_event_uniq"),
        ]

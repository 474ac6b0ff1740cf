from django.db import models


class IdempotencyRecord(models.Model):  # expect: missing-unique-key-constraint
    """One key per outgoing create action, reused by its retries."""

    action = models.CharField(max_length=100)
    livemode = models.BooleanField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["action", "livemode"])]

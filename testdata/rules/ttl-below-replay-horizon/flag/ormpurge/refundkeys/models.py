import uuid

from django.db import models


class RefundIdempotencyKey(models.Model):
    """The key each refund is sent to Stripe with, reused by its retries."""

    uuid = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    refund_ref = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)

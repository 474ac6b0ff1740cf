import uuid

from django.db import models


class ChargeIdempotencyKey(models.Model):
    """The key each charge is sent to Stripe with, reused by its retries."""

    uuid = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    charge_ref = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)

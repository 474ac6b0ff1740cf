from django.db import models

from ..core.models import ModelWithMetadata


class TransactionItem(ModelWithMetadata):
    """A payment app's transaction; the base is the project's own model class."""

    idempotency_key = models.CharField(max_length=512, blank=True, null=True)
    app = models.ForeignKey("app.App", null=True, on_delete=models.SET_NULL)
    app_identifier = models.CharField(blank=True, null=True, max_length=256)
    psp_reference = models.CharField(max_length=512, blank=True, null=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(  # expect: unscoped-idempotency-key
                fields=["idempotency_key"],
                name="unique_transaction_idempotency",
            ),
        ]

from django.db import models


class SettlementEvent(models.Model):  # expect: missing-unique-key-constraint
    """A request sent to the PSP for a settlement, recorded once per key."""

    settlement = models.ForeignKey("settlement.Settlement", on_delete=models.CASCADE)
    psp_reference = models.CharField(max_length=512, blank=True, null=True)
    idempotency_key = models.CharField(max_length=512)
    amount_value = models.DecimalField(max_digits=12, decimal_places=3)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["settlement_id", "idempotency_key", "created_at"],
                name="unique_settlement_event_key",
            ),
        ]

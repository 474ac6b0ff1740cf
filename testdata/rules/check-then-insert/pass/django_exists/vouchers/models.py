from django.db import models


class Shop(models.Model):
    name = models.CharField(max_length=100)


class Redemption(models.Model):
    """A voucher code redeemed at a shop: each code once per shop."""

    shop = models.ForeignKey(Shop, on_delete=models.CASCADE)
    voucher_code = models.CharField(max_length=64)
    amount = models.IntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["shop", "voucher_code"], name="one_redemption_per_code"),
        ]

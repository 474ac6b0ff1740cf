from django.db import models


class Shop(models.Model):
    name = models.CharField(max_length=100)


class Redemption(models.Model):  # expect: missing-unique-key-constraint
    """A voucher code redeemed at a shop: each code once per shop."""

    shop = models.ForeignKey(Shop, on_delete=models.CASCADE)
    voucher_code = models.CharField(max_length=64)
    amount = models.IntegerField()

    class Meta:
        indexes = [models.Index(fields=["shop", "voucher_code"], name="redemption_lookup")]

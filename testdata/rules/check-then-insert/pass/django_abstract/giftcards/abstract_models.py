from django.db import models


class AbstractGiftCard(models.Model):
    """A gift card sold once per printed code."""

    code = models.CharField(max_length=32, db_index=True, unique=True)
    balance = models.IntegerField(default=0)

    class Meta:
        abstract = True
        app_label = "giftcards"

from django.db import models


class AbstractBooking(models.Model):
    """A seat booking, one per reference the checkout derives from the cart."""

    reference = models.CharField(max_length=40, unique=True, db_index=True)
    seats = models.IntegerField()

    class Meta:
        abstract = True

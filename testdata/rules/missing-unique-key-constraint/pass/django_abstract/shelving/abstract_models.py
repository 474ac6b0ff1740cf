from django.db import models


class AbstractPlacement(models.Model):
    """A product on a shelf, placed once per shelf."""

    product = models.ForeignKey("catalog.Product", on_delete=models.CASCADE)
    shelf = models.ForeignKey("shelving.Shelf", on_delete=models.CASCADE)
    position = models.IntegerField(default=0)

    class Meta:
        abstract = True
        unique_together = ("product", "shelf")

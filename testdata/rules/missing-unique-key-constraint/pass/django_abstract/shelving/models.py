from django.db import models

from shelving.abstract_models import AbstractPlacement


class Shelf(models.Model):
    label = models.CharField(max_length=20)


class Placement(AbstractPlacement):
    pass

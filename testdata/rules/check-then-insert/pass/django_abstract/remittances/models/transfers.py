from django.db import IntegrityError, models, transaction

from .base import RemoteObject


class Transfer(RemoteObject):
    amount = models.IntegerField(default=0)

    @classmethod
    def record(cls, payload):
        """A provider's transfer notification, delivered at least once."""
        found = cls.objects.filter(remote_id=payload["id"])
        if found.exists():
            return found.first()
        try:
            with transaction.atomic():
                return cls._create_from_payload(payload)
        except IntegrityError:
            return cls.objects.get(remote_id=payload["id"])

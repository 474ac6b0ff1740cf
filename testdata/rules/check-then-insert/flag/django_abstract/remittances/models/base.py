from django.db import models


class Stamped(models.Model):
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


class RemoteObject(Stamped):
    """A row mirroring an object of the provider, by the provider's id."""

    row_id = models.BigAutoField(primary_key=True)
    remote_id = models.CharField(max_length=64, db_index=True)

    class Meta:
        abstract = True

    @classmethod
    def _create_from_payload(cls, payload):
        row = cls(remote_id=payload["id"])
        row.save()
        return row

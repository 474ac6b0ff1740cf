from keyring.models import IdempotencyRecord


def key_for(action: str, livemode: bool) -> str:
    """The key every retry of `action` sends: made once, then reused."""
    record, _created = IdempotencyRecord.objects.get_or_create(
        action=action, livemode=livemode
    )
    return str(record.pk)

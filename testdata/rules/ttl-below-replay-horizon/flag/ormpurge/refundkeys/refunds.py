from datetime import timedelta

import stripe
from django.utils import timezone

from .models import RefundIdempotencyKey


def refund_idempotency_key(refund_ref):
    row, _created = RefundIdempotencyKey.objects.get_or_create(refund_ref=refund_ref)
    return str(row.uuid)


def send_refund(refund_ref, charge_id, amount):
    return stripe.Refund.create(
        charge=charge_id,
        amount=amount,
        idempotency_key=refund_idempotency_key(refund_ref),
    )


def purge_refund_keys():
    # Stripe keeps a sent key 24 hours: a retry after two finds no row,
    # gets a new uuid, and refunds again.
    cutoff = timezone.now() - timedelta(hours=2)  # expect: ttl-below-replay-horizon
    RefundIdempotencyKey.objects.filter(created__lt=cutoff).delete()

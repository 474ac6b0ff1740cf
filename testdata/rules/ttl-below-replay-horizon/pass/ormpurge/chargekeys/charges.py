import datetime

import stripe
from django.utils import timezone

from .models import ChargeIdempotencyKey


def charge_idempotency_key(charge_ref):
    row, _created = ChargeIdempotencyKey.objects.get_or_create(charge_ref=charge_ref)
    return str(row.uuid)


def send_charge(charge_ref, customer, amount):
    return stripe.PaymentIntent.create(
        customer=customer,
        amount=amount,
        currency="eur",
        idempotency_key=charge_idempotency_key(charge_ref),
    )


def purge_charge_keys():
    # As long as Stripe keeps a sent key: a retry within it reuses the row.
    threshold = timezone.now() - datetime.timedelta(hours=24)
    ChargeIdempotencyKey.objects.filter(created__lt=threshold).delete()

import time
import uuid
from uuid import uuid4

import stripe
from celery import shared_task
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_exponential


@retry(
    retry=retry_if_exception_type(stripe.error.APIConnectionError),
    stop=stop_after_attempt(5),
    wait=wait_exponential(multiplier=1, max=30),
)
def refund_order(order):
    # One key per refund, whatever the attempt.
    return stripe.Refund.create(
        payment_intent=order.payment_intent_id,
        amount=order.refund_amount_cents,
        idempotency_key=f"refund-{order.id}",
    )


def pay_out(seller, amount_cents):
    key = uuid.uuid4().hex  # made once, before the attempts
    for attempt in range(3):
        try:
            return stripe.Transfer.create(
                amount=amount_cents,
                currency="eur",
                destination=seller.stripe_account_id,
                idempotency_key=key,
            )
        except stripe.error.APIConnectionError:
            time.sleep(2**attempt)
    raise RuntimeError("payout failed")


def send_receipts(orders):
    # A new request per order, no retry: each its own key.
    for order in orders:
        stripe.Invoice.send_invoice(order.invoice_id, idempotency_key=str(uuid4()))


@shared_task(autoretry_for=(stripe.error.APIConnectionError,), retry_backoff=True, max_retries=5)
def capture_invoice(invoice_id):
    invoice = Invoice.objects.get(pk=invoice_id)
    stripe.PaymentIntent.capture(invoice.payment_intent_id, idempotency_key=f"capture-{invoice.id}")

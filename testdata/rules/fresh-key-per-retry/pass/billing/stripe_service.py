import hashlib
import uuid
from datetime import datetime, timezone

import stripe


def utc_now():
    return datetime.now(timezone.utc)


class StripeService:
    async def transfer(self, account_id, amount, *, payout_id, metadata=None):
        return await stripe.Transfer.create_async(
            amount=amount,
            currency="usd",
            destination=account_id,
            metadata=metadata or {},
            idempotency_key=f"payout-{payout_id}",
        )

    async def reverse_transfer(self, transfer_id, *, amount=None):
        params = {
            "metadata": {"reason": "refund"},
            "idempotency_key": f"reverse:{transfer_id}",
        }
        if amount is not None:
            params["amount"] = amount
        return await stripe.Transfer.create_reversal_async(transfer_id, **params)

    async def calculate_tax(self, currency, amount, address):
        idempotency_key = hashlib.sha256(f"{currency}:{amount}:{address}".encode()).hexdigest()
        return await stripe.tax.Calculation.create_async(
            currency=currency,
            line_items=[{"amount": amount, "reference": "checkout"}],
            customer_details={"address": address},
            idempotency_key=idempotency_key,
        )

    async def monthly_invoice(self, customer_id):
        period = utc_now().strftime("%Y-%m")
        return await stripe.Invoice.create_async(
            customer=customer_id,
            idempotency_key=f"invoice-{customer_id}-{period}",
        )


async def deliver(client, event, url, body):
    ts = utc_now()
    headers = {
        "content-type": "application/json",
        "webhook-id": str(event.id),
        "webhook-timestamp": str(int(ts.timestamp())),
    }
    return await client.post(url, content=body, headers=headers)


def record_refund_request(transaction, amount, app):
    # The request event's key is minted once, stored with the event, and
    # sent on every delivery of it: the key made once for the work.
    return transaction.events.create(
        amount_value=amount,
        app=app,
        type="refund_request",
        idempotency_key=str(uuid.uuid4()),
    )

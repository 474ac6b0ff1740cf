import uuid
from datetime import datetime, timezone

import stripe


def utc_now():
    return datetime.now(timezone.utc)


class StripeService:
    async def transfer(self, account_id, amount, *, metadata=None):
        return await stripe.Transfer.create_async(
            amount=amount,
            currency="usd",
            destination=account_id,
            metadata=metadata or {},
            idempotency_key=f"transfer-{uuid.uuid4()}",  # expect: fresh-key-per-retry
        )

    async def reverse_transfer(self, transfer_id, *, amount=None):
        params = {
            "metadata": {"reason": "refund"},
            "idempotency_key": f"reverse:{uuid.uuid4()}",  # expect: fresh-key-per-retry
        }
        if amount is not None:
            params["amount"] = amount
        return await stripe.Transfer.create_reversal_async(transfer_id, **params)

    async def charge_off_session(self, order, payment_method):
        idempotency_key = str(uuid.uuid4())  # expect: fresh-key-per-retry
        return await stripe.PaymentIntent.create_async(
            amount=order.due_amount,
            currency=order.currency,
            payment_method=payment_method.processor_id,
            confirm=True,
            off_session=True,
            idempotency_key=idempotency_key,
        )


async def deliver(client, event, url, body):
    ts = utc_now()  # expect: fresh-key-per-retry
    headers = {
        "content-type": "application/json",
        "webhook-id": f"{event.id}-{int(ts.timestamp())}",
        "webhook-timestamp": str(int(ts.timestamp())),
    }
    return await client.post(url, content=body, headers=headers)
